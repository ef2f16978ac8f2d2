import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { commandSandboxSkipReason } from '@agent-workspace/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './testing/start-test-server.js';

type Json = Record<string, unknown>;

const skipReason = commandSandboxSkipReason('agent-server --sandbox');

describe.skipIf(skipReason !== undefined)('a sandboxed agent-server', () => {
  let t: TestServer;
  let outside: string;
  let listener: Server;
  let port: number;

  const execute = async (body: Json): Promise<{ status: number; json: Json }> => {
    const response = await fetch(`${t.url}/api/bash/execute_bash_command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ timeout: 20, ...body }),
    });
    return { status: response.status, json: (await response.json()) as Json };
  };

  beforeAll(async () => {
    outside = await realpath(await mkdtemp(path.join(os.tmpdir(), 'sandbox-outside-')));
    await writeFile(path.join(outside, 'secret.txt'), 'SECRET');
    listener = createServer((socket) => socket.end('host-only\n'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
    t = await startTestServer({ sandbox: { network: false } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    listener.close();
    await rm(outside, { recursive: true, force: true });
  });

  it('confines paths and announces the sandbox', async () => {
    const info = (await (await fetch(`${t.url}/server_info`)).json()) as { capabilities: string[] };
    expect(info.capabilities).toEqual(
      expect.arrayContaining([
        'agent_workspace.confine_to_working_dir_v1',
        'agent_workspace.command_sandbox_v1',
      ]),
    );
    const download = await fetch(
      `${t.url}/api/file/download?${new URLSearchParams({ path: path.join(outside, 'secret.txt') })}`,
    );
    expect(download.status).toBe(403);
    await download.arrayBuffer();
  });

  it('runs commands that see the working dir but not the rest of the machine or the network', async () => {
    const { status, json } = await execute({
      command: [
        'echo made > made.txt',
        `cat ${path.join(outside, 'secret.txt')} 2>/dev/null || echo no-outside`,
        'ls /root 2>/dev/null | head -1; echo no-home',
        `(echo > /dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo reached || echo no-network`,
        'touch /usr/x 2>/dev/null || echo read-only-system',
      ].join('; '),
    });
    expect(status).toBe(200);
    expect(json.stdout).toBe('no-outside\nno-home\nno-network\nread-only-system\n');
    expect(await readFile(path.join(t.dir, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('keeps background processes across commands, and runs git inside', async () => {
    const started = await execute({ command: 'sleep 30 & echo $!' });
    const pid = String(started.json.stdout).trim();
    const probe = await execute({ command: `kill -0 ${pid} && echo alive; kill ${pid}` });
    expect(probe.json.stdout).toBe('alive\n');
    await mkdir(path.join(t.dir, 'repo'));
    const init = await execute({
      command:
        'git init -q && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && echo new > f.txt',
      cwd: 'repo',
    });
    expect(init.json.exit_code).toBe(0);
    const changes = await fetch(`${t.url}/api/git/changes?path=repo`);
    expect(await changes.json()).toEqual([{ status: 'ADDED', path: 'f.txt' }]);
  });
});
