import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { RemoteWorkspace } from '@openhands/typescript-client';
import { BashClient } from '@openhands/typescript-client/clients';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const execFileAsync = promisify(execFile);

type Json = Record<string, unknown>;

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

  it('starts, executes, searches, fetches and clears bash events', async () => {
    const keyed = await startTestServer({ sessionApiKeys: ['oh-key'] });
    const bash = new BashClient({ host: keyed.url, apiKey: 'oh-key' });
    try {
      const output = await bash.executeCommand('echo from-client; echo err >&2; exit 2');
      expect(output).toMatchObject({ exit_code: 2, stdout: 'from-client\n', stderr: 'err\n' });
      const command = await bash.startCommand('echo started', keyed.dir, 10);
      expect(command).toMatchObject({
        kind: 'BashCommand',
        command: 'echo started',
        cwd: keyed.dir,
        timeout: 10,
      });
      const outputs = await vi.waitFor(
        async () => {
          const page = await bash.searchEvents({ command_id__eq: command.id, order__gt: -1 });
          expect(page.items.some((item: Json) => item.exit_code !== null)).toBe(true);
          return page.items;
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(outputs.map((item: Json) => item.stdout ?? '').join('')).toBe('started\n');
      expect(await bash.getEvent(command.id)).toEqual(command);
      expect(await bash.batchGetEvents([command.id, '2'.repeat(32)])).toEqual([command, null]);
      expect(await bash.clearEvents()).toEqual({ cleared_count: expect.any(Number) });
      expect((await bash.searchEvents({})).items).toEqual([]);
      const workspace = new RemoteWorkspace({
        host: keyed.url,
        workingDir: keyed.dir,
        apiKey: 'oh-key',
      });
      expect(await workspace.executeCommand('pwd -P')).toMatchObject({
        exit_code: 0,
        stdout: `${keyed.dir}\n`,
      });
    } finally {
      bash.close();
      await keyed.close();
    }
  });
});
