import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentServerImageTag, listFiles } from './agent-server-image-tag.js';

let bundleDir: string;
const dockerfile = Buffer.from('FROM base\nCOPY dist/bundle/ /opt/agent-server/\n');
const baseImageId = `sha256:${'a'.repeat(64)}`;

beforeEach(async () => {
  bundleDir = await mkdtemp(path.join(os.tmpdir(), 'bundle-'));
  await writeFile(path.join(bundleDir, 'agent-server.mjs'), 'console.log(1);\n');
  await mkdir(path.join(bundleDir, 'static'));
  await writeFile(path.join(bundleDir, 'static/app.js'), 'x');
});
afterEach(() => rm(bundleDir, { recursive: true, force: true }));

const tagOf = (overrides: Partial<Parameters<typeof agentServerImageTag>[0]> = {}) =>
  agentServerImageTag({ dockerfile, bundleDir, baseImageId, ...overrides });

describe('agentServerImageTag', () => {
  it('is a stable agent-workspace/agent-server:<12 hex> tag', async () => {
    const tag = await tagOf();
    expect(tag).toMatch(/^agent-workspace\/agent-server:[0-9a-f]{12}$/);
    expect(await tagOf()).toBe(tag);
  });

  it('changes with the Dockerfile and the base image', async () => {
    const tag = await tagOf();
    expect(await tagOf({ dockerfile: Buffer.from(`${dockerfile}EXPOSE 8000\n`) })).not.toBe(tag);
    expect(await tagOf({ baseImageId: `sha256:${'b'.repeat(64)}` })).not.toBe(tag);
  });

  it('changes when a bundle file changes, is added or is renamed', async () => {
    const tags = [await tagOf()];
    await writeFile(path.join(bundleDir, 'static/app.js'), 'y');
    tags.push(await tagOf());
    await writeFile(path.join(bundleDir, 'static/extra.css'), '');
    tags.push(await tagOf());
    await rename(path.join(bundleDir, 'static/extra.css'), path.join(bundleDir, 'extra.css'));
    tags.push(await tagOf());
    expect(new Set(tags).size).toBe(4);
  });

  it('lists nested bundle files relative, with / separators, sorted', async () => {
    expect(await listFiles(bundleDir)).toEqual(['agent-server.mjs', 'static/app.js']);
  });
});
