import { describe, expect, it } from 'vitest';
import { type BaseImageRecipe, baseImageTag } from './base-image-tag.js';

const recipe: BaseImageRecipe = {
  suite: 'bookworm',
  mirror: 'http://mirror.test/debian',
  nodeVersion: 'v20.20.0',
  architecture: 'x64',
  include: ['git', 'tini'],
};

describe('baseImageTag', () => {
  it('is a stable agent-workspace/base:<12 hex> tag, whatever the package order', () => {
    const tag = baseImageTag(recipe);
    expect(tag).toMatch(/^agent-workspace\/base:[0-9a-f]{12}$/);
    expect(baseImageTag({ ...recipe })).toBe(tag);
    expect(baseImageTag({ ...recipe, include: ['tini', 'git'] })).toBe(tag);
  });

  it('changes with the suite, mirror, node version, architecture and packages', () => {
    const tags = new Set([
      baseImageTag(recipe),
      baseImageTag({ ...recipe, suite: 'trixie' }),
      baseImageTag({ ...recipe, mirror: 'http://other.mirror.test/debian' }),
      baseImageTag({ ...recipe, nodeVersion: 'v20.20.1' }),
      baseImageTag({ ...recipe, architecture: 'arm64' }),
      baseImageTag({ ...recipe, include: ['git', 'tini', 'curl'] }),
      // Framing keeps moved boundaries apart.
      baseImageTag({ ...recipe, include: ['git,tini'] }),
    ]);
    expect(tags.size).toBe(7);
  });
});
