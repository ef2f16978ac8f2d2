import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { RemoteWorkspace } from '@openhands/typescript-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test-support/start-test-server.js';

const execFileAsync = promisify(execFile);

describe('the official OpenHands TypeScript client', () => {
  let t: TestServer;
  let workspace: RemoteWorkspace;

  beforeAll(async () => {
    t = await startTestServer({ sessionApiKeys: ['client-key'] });
    workspace = new RemoteWorkspace({ host: t.url, workingDir: t.dir, apiKey: 'client-key' });
  });
  afterAll(() => t.close());

  it('uploads and downloads files', async () => {
    const target = path.join(t.dir, 'from-client/notes.txt');
    const uploaded = await workspace.uploadText('written by the client\n', target);
    expect(uploaded.success).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('written by the client\n');
    expect(await workspace.downloadAsText(target)).toBe('written by the client\n');
  });

  it('reads git changes and diffs', async () => {
    const repo = path.join(t.dir, 'repo');
    await mkdir(repo);
    await execFileAsync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
    await writeFile(path.join(repo, 'new.txt'), 'fresh\n');
    expect(await workspace.gitChanges(repo)).toEqual([{ status: 'ADDED', path: 'new.txt' }]);
    expect(await workspace.gitDiff(path.join(repo, 'new.txt'))).toEqual({
      modified: 'fresh\n',
      original: '',
    });
  });
});
