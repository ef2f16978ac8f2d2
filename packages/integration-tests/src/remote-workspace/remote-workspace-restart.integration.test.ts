/**
 * A server restart while a client waits: the running command is ended by the shutdown, its final
 * event is flushed to the state directory, and a new server on the same port and state directory
 * answers the waiting client, which gets a real result (exit 143, SIGTERM) with the output printed
 * before the restart, exactly once.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type AgentServer, createAgentServer } from '@agent-workspace/agent-server';
import { RemoteWorkspace } from '@agent-workspace/core';
import { afterEach, describe, expect, it } from 'vitest';

const KEY = 'restart-key';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function start(options: {
  port: number;
  workingDir: string;
  stateDir: string;
  extensions: boolean;
}) {
  const server = await createAgentServer({ ...options, logLevel: 'silent', sessionApiKeys: [KEY] });
  cleanups.push(() => server.close());
  return server;
}

describe.each([
  { mode: 'streaming exec', extensions: true },
  { mode: 'OpenHands polling', extensions: false },
])('RemoteWorkspace across a server restart ($mode)', ({ extensions }) => {
  it('returns the command result recorded before the restart, output exactly once', async () => {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'restart-')));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const stateDir = path.join(root, 'state');
    const first: AgentServer = await start({ port: 0, workingDir: root, stateDir, extensions });
    const workspace = new RemoteWorkspace({ host: first.url, workingDir: root, apiKey: KEY });
    cleanups.push(() => workspace.close());

    let streamed = '';
    let printed: () => void = () => {};
    const before = new Promise<void>((resolve) => {
      printed = resolve;
    });
    const pending = workspace.executeCommand('echo before; sleep 30; echo never', {
      timeoutMs: 60_000,
      onStdout: (chunk) => {
        streamed += chunk;
        if (streamed.includes('before')) printed();
      },
    });
    await before;
    await first.close();
    await start({ port: first.port, workingDir: root, stateDir, extensions });

    const result = await pending;
    expect(result.exitCode).toBe(143);
    expect(result.timeoutOccurred).toBe(false);
    expect(result.stdout).toBe('before\n');
    expect(streamed).toBe('before\n');
  }, 60_000);
});
