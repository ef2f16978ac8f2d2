import { describe, expect, it } from 'vitest';
import { fileWatchQueryWireSchema, fileWatchServerFrameWireSchema } from './file-watch-frame.js';

describe('file-watch frames', () => {
  it('parses the query: recursive as a boolean string, the queue limit bounded', () => {
    expect(
      fileWatchQueryWireSchema.parse({ path: 'src', recursive: 'true', max_queued_events: '8' }),
    ).toEqual({ path: 'src', recursive: true, max_queued_events: 8 });
    for (const bad of [
      { path: '' },
      { path: 'a\0b' },
      { path: 'a', recursive: 'maybe' },
      { path: 'a', max_queued_events: '0' },
      { path: 'a', max_queued_events: '65537' },
      { path: 'a', max_queued_events: '1.5' },
    ]) {
      expect(fileWatchQueryWireSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('parses every server frame and refuses unknown types and codes', () => {
    for (const frame of [
      { type: 'ready' },
      { type: 'create', path: 'a/b', is_directory: false },
      { type: 'remove', path: 'a' },
      { type: 'overflow', path: '' },
      { type: 'error', code: 'NOT_FOUND', message: 'gone', field: 'path' },
    ]) {
      expect(fileWatchServerFrameWireSchema.parse(frame)).toEqual(frame);
    }
    expect(fileWatchServerFrameWireSchema.safeParse({ type: 'rename', path: 'a' }).success).toBe(
      false,
    );
    expect(
      fileWatchServerFrameWireSchema.safeParse({ type: 'error', code: 'NOPE', message: '' })
        .success,
    ).toBe(false);
  });
});
