import { WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it } from 'vitest';
import { checkImageReference, parseImageReference } from './image-reference.js';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

describe('checkImageReference', () => {
  it('accepts what Docker accepts', () => {
    const valid = [
      'node',
      'node:20-bookworm-slim',
      'library/node:20',
      'docker.io/library/node:20',
      'registry.test:5000/team/app:v1.2_3',
      'localhost:5000/app',
      'localhost/app',
      '[::1]:5000/app:dev',
      'Registry.Test/app',
      'a__b/c--d/e.f/g_h',
      'agent-workspace/base:0123456789ab',
      `node@${DIGEST}`,
      `node:20@${DIGEST}`,
      // An image id is a name and a tag to the grammar, and the engine takes it.
      DIGEST,
      'x'.repeat(255),
      `app:_${'t'.repeat(127)}`,
    ];
    for (const reference of valid)
      expect(checkImageReference(reference), reference).toBeUndefined();
  });

  it('says what is wrong with the rest', () => {
    const invalid: [string, string][] = [
      ['', 'must be a non-empty image reference'],
      ['Bad Name', 'it contains whitespace'],
      ['node\t', 'it contains whitespace'],
      ['Node', 'the repository path must be lowercase'],
      ['registry.test/Team/app', 'the repository path must be lowercase'],
      ['node:', 'the tag must be 1 to 128'],
      ['node:-x', 'the tag must be 1 to 128'],
      ['node:.x', 'the tag must be 1 to 128'],
      [`node:${'t'.repeat(129)}`, 'the tag must be 1 to 128'],
      ['node@sha256:abc', 'the digest must be'],
      ['node@', 'the digest must be'],
      ['x'.repeat(256), 'the name must be at most 255 characters'],
      ['-node', 'the name must be [host[:port]/]path'],
      ['node-', 'the name must be [host[:port]/]path'],
      ['a___b', 'the name must be [host[:port]/]path'],
      ['a..b', 'the name must be [host[:port]/]path'],
      ['a//b', 'the name must be [host[:port]/]path'],
      ['/node', 'the name must be [host[:port]/]path'],
      ['node/', 'the name must be [host[:port]/]path'],
      ['http://node', 'the name must be [host[:port]/]path'],
      ['host:port/app', 'the name must be [host[:port]/]path'],
      ['ünïcode', 'the name must be [host[:port]/]path'],
    ];
    for (const [reference, reason] of invalid) {
      expect(checkImageReference(reference), reference).toContain(reason);
    }
    expect(checkImageReference('Bad Name')).toBe(
      'is not a valid image reference ("Bad Name"): it contains whitespace',
    );
  });

  it('refuses a digest where a name to tag with is expected', () => {
    expect(checkImageReference(`app@${DIGEST}`, { allowDigest: false })).toContain(
      'a digest (@...) cannot name an image; use name[:tag]',
    );
    expect(checkImageReference('app:v1', { allowDigest: false })).toBeUndefined();
  });
});

describe('parseImageReference', () => {
  it('splits a reference into repository, tag and digest', () => {
    expect(parseImageReference(`registry.test:5000/team/app:v1@${DIGEST}`, 'image')).toEqual({
      repository: 'registry.test:5000/team/app',
      tag: 'v1',
      digest: DIGEST,
    });
    expect(parseImageReference('localhost:5000/app', 'image')).toEqual({
      repository: 'localhost:5000/app',
    });
  });

  it('throws INVALID_ARGUMENT naming the field and the reason', () => {
    let error: unknown;
    try {
      parseImageReference('Bad Name', '--base-image');
    } catch (caught) {
      error = caught;
    }
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect(error).toMatchObject({
      message: '--base-image is not a valid image reference ("Bad Name"): it contains whitespace',
      details: { field: '--base-image' },
    });
  });
});
