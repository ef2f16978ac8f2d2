import { describe, expect, it } from 'vitest';
import {
  MAX_RUNTIME_SNAPSHOT_NAME_LENGTH,
  runtimeSnapshotPath,
} from '../wire/runtime-api-routes.js';
import {
  runtimeSnapshotFromWire,
  runtimeSnapshotIdSchema,
  takeRuntimeSnapshotRequestWireSchema,
} from './runtime-snapshot.js';
import { startRuntimeRequestWireSchema } from './start-runtime-request.js';

const ID = '0123456789abcdef0123456789abcdef';

describe('runtime snapshots on the wire', () => {
  it('takes 32 lowercase hex digits as a snapshot id, nothing else', () => {
    expect(runtimeSnapshotIdSchema.safeParse(ID).success).toBe(true);
    for (const bad of [ID.toUpperCase(), `${ID}0`, ID.slice(1), `../${ID}`, '', 1]) {
      expect(runtimeSnapshotIdSchema.safeParse(bad).success).toBe(false);
    }
    expect(runtimeSnapshotPath(ID)).toBe(`/snapshots/${ID}`);
  });

  it('bounds the name and refuses control characters and unknown fields, naming them', () => {
    const parse = (body: unknown) => takeRuntimeSnapshotRequestWireSchema.safeParse(body);
    expect(
      parse({ runtime_id: 'r', name: 'x'.repeat(MAX_RUNTIME_SNAPSHOT_NAME_LENGTH) }).success,
    ).toBe(true);
    for (const name of ['', 'x'.repeat(MAX_RUNTIME_SNAPSHOT_NAME_LENGTH + 1), 'a\nb', 'a\u007fb']) {
      expect(parse({ runtime_id: 'r', name }).error?.issues[0]?.path).toEqual(['name']);
    }
    expect(parse({ runtime_id: 'r', env: {} }).success).toBe(false);
  });

  it('takes from_snapshot on /start as a snapshot id', () => {
    const start = { image: 'i', session_id: 's' };
    expect(startRuntimeRequestWireSchema.safeParse({ ...start, from_snapshot: ID }).success).toBe(
      true,
    );
    const bad = startRuntimeRequestWireSchema.safeParse({ ...start, from_snapshot: 'x' });
    expect(bad.error?.issues[0]?.path).toEqual(['from_snapshot']);
  });

  it('reads a snapshot in camelCase', () => {
    expect(
      runtimeSnapshotFromWire({
        snapshot_id: ID,
        session_id: 's',
        image: 'i',
        name: 'n',
        created_at: '2026-01-01T00:00:00.000Z',
        size_bytes: 5,
        extra: true,
      }),
    ).toEqual({
      snapshotId: ID,
      sessionId: 's',
      image: 'i',
      name: 'n',
      createdAt: '2026-01-01T00:00:00.000Z',
      sizeBytes: 5,
    });
  });
});
