/**
 * The SandboxWorkspace template, driven through a real sandbox: an agent-server child process
 * (or a script faking a broken one). Start, lazy start, pause/resume, a sandbox that dies or
 * never answers during start, one killed during use, close during start, and close idempotence.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type RequestListener } from 'node:http';
import { WorkspaceError } from '@agent-workspace/core';
import { expectRejection } from '@agent-workspace/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ProcessSandboxWorkspace,
  type ProcessSandboxWorkspaceOptions,
} from '../test-support/process-sandbox-workspace.js';

/** Prints a fatal message and exits 3 before listening. */
const EXITS_EARLY = "console.error('fatal: cannot open the frobnicator'); process.exit(3);";

/** Listens, announces its url, but answers /health with 503 forever. */
const NEVER_HEALTHY = `
const server = require('node:http').createServer((request, response) => {
  response.statusCode = 503;
  response.end('warming up');
});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port }));
  console.error('still warming up the caches');
});
`;

/** How long and how often `vi.waitFor` polls for a sandbox process to change state. */
const WAIT = { timeout: 10_000, interval: 20 };

const workspaces: ProcessSandboxWorkspace[] = [];
afterEach(async () => {
  await Promise.allSettled(workspaces.splice(0).map((workspace) => workspace.close()));
});

function makeWorkspace(options: ProcessSandboxWorkspaceOptions = {}): ProcessSandboxWorkspace {
  const workspace = new ProcessSandboxWorkspace(options);
  workspaces.push(workspace);
  return workspace;
}

/** Process state letter from /proc (R, S, T for stopped, ...). */
async function processState(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
}

function isRunning(workspace: ProcessSandboxWorkspace): boolean {
  const child = workspace.child;
  return child !== undefined && child.exitCode === null && child.signalCode === null;
}

describe('SandboxWorkspace lifecycle (agent-server process sandbox)', () => {
  it('starts, delegates to the agent-server, and close() releases exactly once', async () => {
    const workspace = makeWorkspace();
    expect(workspace.status).toBe('new');
    await workspace.start();
    expect(workspace.status).toBe('ready');
    expect(workspace.host).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await workspace.alive()).toBe(true);
    expect((await workspace.serverInfo()).capabilities.length).toBeGreaterThan(0);
    const result = await workspace.executeCommand('pwd -P');
    expect(result).toMatchObject({
      exitCode: 0,
      stdout: expect.stringContaining('process-sandbox-'),
    });
    // The server demands the session key the client was given.
    expect((await fetch(`${workspace.host}/api/git/changes?path=.`)).status).toBe(401);

    await Promise.all([workspace.close(), workspace.close(), workspace[Symbol.asyncDispose]()]);
    expect(workspace.status).toBe('closed');
    expect(workspace.child?.signalCode).toBe('SIGKILL');
    expect(existsSync(workspace.workingDir)).toBe(false);
    await expectRejection(workspace.executeCommand('true'), 'WORKSPACE_CLOSED');
    await expectRejection(workspace.start(), 'WORKSPACE_CLOSED');
    await workspace.close();
  });

  it('starts on first use when start() was not called', async () => {
    const workspace = makeWorkspace();
    const [first, second] = await Promise.all([
      workspace.executeCommand('echo one'),
      workspace.executeCommand('echo two'),
    ]);
    expect([first.stdout, second.stdout]).toEqual(['one\n', 'two\n']);
    expect(workspace.status).toBe('ready');
  });

  it('pause() stops the sandbox, operations reject with WORKSPACE_PAUSED, resume() revives it', async () => {
    const workspace = makeWorkspace();
    await workspace.start();
    const pid = workspace.child!.pid!;
    await workspace.pause();
    await workspace.pause();
    expect(workspace.status).toBe('paused');
    expect(await processState(pid)).toBe('T');
    expect(await workspace.alive()).toBe(false);
    // A hang here would time the test out: paused means an immediate, typed rejection.
    await expectRejection(workspace.executeCommand('echo never'), 'WORKSPACE_PAUSED');
    await expectRejection(workspace.gitChanges('.'), 'WORKSPACE_PAUSED');
    await expectRejection(workspace.serverInfo(), 'WORKSPACE_PAUSED');

    await workspace.resume();
    expect(workspace.status).toBe('ready');
    expect(await processState(pid)).not.toBe('T');
    expect((await workspace.executeCommand('echo back')).stdout).toBe('back\n');
    await workspace.resume();
  });

  it('a sandbox that comes back at another address after resume is used there', async () => {
    const workspace = makeWorkspace({ restartOnResume: true });
    await workspace.executeCommand('echo kept > note.txt');
    const before = workspace.host;
    await workspace.pause();
    await workspace.resume();
    expect(workspace.host).not.toBe(before);
    expect((await workspace.executeCommand('cat note.txt')).stdout).toBe('kept\n');
    expect((await workspace.agentServerEndpoint()).host).toBe(workspace.host);
  });

  it('a sandbox that exits during start gives PROVISIONING_ERROR with its exit code and logs', async () => {
    const workspace = makeWorkspace({ script: EXITS_EARLY });
    const error = await expectRejection(workspace.start(), 'PROVISIONING_ERROR');
    expect(error.message).toContain('stopped before its agent-server became alive');
    expect(error.message).toContain('exited with code 3');
    expect(error.message).toContain('fatal: cannot open the frobnicator');
    expect(error.details).toMatchObject({ state: 'exited', exitCode: 3 });
    expect(workspace.status).toBe('failed');
    expect(existsSync(workspace.workingDir)).toBe(false);
    // The workspace stays unusable with the same explanation.
    expect(await expectRejection(workspace.executeCommand('true'), 'PROVISIONING_ERROR')).toBe(
      error,
    );
  });

  it('a sandbox that never answers /health gives PROVISIONING_ERROR with logs and is killed', async () => {
    // The deadline leaves a loaded machine time to start node and print, so the log is there.
    const workspace = makeWorkspace({ script: NEVER_HEALTHY, startupTimeoutMs: 5_000 });
    const error = await expectRejection(workspace.start(), 'PROVISIONING_ERROR');
    expect(error.message).toContain('was not ready within 5000 ms (startupTimeoutMs)');
    expect(error.message).toContain('waiting for its agent-server to answer /health');
    expect(error.message).toContain('the sandbox is running');
    expect(error.message).toContain('still warming up the caches');
    expect(workspace.child?.signalCode).toBe('SIGKILL');
    expect(existsSync(workspace.workingDir)).toBe(false);
  });

  it('a sandbox killed during use gives SANDBOX_EXITED, for the running and every later call', async () => {
    const workspace = makeWorkspace({ reconnectTimeoutMs: 500 });
    await workspace.start();
    let output = '';
    const running = workspace.executeCommand('echo started; sleep 30', {
      timeoutMs: 60_000,
      onStdout: (chunk) => {
        output += chunk;
        if (output.includes('started')) workspace.child!.kill('SIGKILL');
      },
    });
    const error = await expectRejection(running, 'SANDBOX_EXITED');
    expect(error.message).toContain('exited with code 137 (killed by SIGKILL)');
    expect(error.message).toContain('agent-server listening on');
    expect(error.details).toMatchObject({ state: 'exited', exitCode: 137 });
    expect(WorkspaceError.isInstance(error.cause, 'CONNECTION_ERROR')).toBe(true);
    expect(workspace.status).toBe('exited');

    expect(await expectRejection(workspace.executeCommand('true'), 'SANDBOX_EXITED')).toBe(error);
    expect(await expectRejection(workspace.pause(), 'SANDBOX_EXITED')).toBe(error);
    await workspace.close();
    expect(existsSync(workspace.workingDir)).toBe(false);
  });

  /**
   * Kills the started `workspace`'s sandbox and serves its freed address with `handler`, as
   * Docker gives a dead container's bridge address to the next one; resolves to a closer.
   */
  async function killAndServeItsAddress(
    workspace: ProcessSandboxWorkspace,
    handler: RequestListener,
  ): Promise<() => Promise<void>> {
    const { port } = new URL(workspace.host!);
    const exited = new Promise((resolve) => workspace.child!.once('exit', resolve));
    workspace.child!.kill('SIGKILL');
    await exited;
    const other = createServer(handler);
    await new Promise<void>((resolve) => other.listen(Number(port), '127.0.0.1', resolve));
    return async () => {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    };
  }

  it('alive() is false for a dead sandbox whose address another server answers on', async () => {
    const workspace = makeWorkspace();
    await workspace.start();
    const stopOther = await killAndServeItsAddress(workspace, (_request, response) =>
      response.end('{"status":"ok"}'),
    );
    try {
      expect((await fetch(`${workspace.host}/health`)).status).toBe(200);
      expect(await workspace.alive()).toBe(false);
      expect(workspace.status).toBe('exited');
      await expectRejection(workspace.executeCommand('true'), 'SANDBOX_EXITED');
    } finally {
      await stopOther();
    }
  });

  it('a dead sandbox whose address another server answers with 401 gives SANDBOX_EXITED', async () => {
    const workspace = makeWorkspace();
    await workspace.start();
    // Another sandbox's server on the freed address: it refuses this workspace's key.
    const stopOther = await killAndServeItsAddress(workspace, (_request, response) => {
      response.statusCode = 401;
      response.end('{"detail":"Unauthorized"}');
    });
    try {
      const error = await expectRejection(workspace.executeCommand('true'), 'SANDBOX_EXITED');
      expect(error.details).toMatchObject({ state: 'exited', exitCode: 137 });
      expect(WorkspaceError.isInstance(error.cause, 'AUTHENTICATION_ERROR')).toBe(true);
      expect(workspace.status).toBe('exited');
    } finally {
      await stopOther();
    }
  });

  it('close() during start() rejects the start with WORKSPACE_CLOSED and releases', async () => {
    const workspace = makeWorkspace({ script: NEVER_HEALTHY, startupTimeoutMs: 60_000 });
    const starting = workspace.start();
    await vi.waitFor(() => expect(workspace.child?.pid).toBeTruthy(), WAIT);
    await vi.waitFor(() => {
      expect(workspace.status).toBe('starting');
      expect(isRunning(workspace)).toBe(true);
    }, WAIT);
    await workspace.close();
    await expectRejection(starting, 'WORKSPACE_CLOSED');
    expect(isRunning(workspace)).toBe(false);
    expect(existsSync(workspace.workingDir)).toBe(false);
  });

  it('an aborted start() rejects with ABORTED and releases what it created', async () => {
    const workspace = makeWorkspace({ script: NEVER_HEALTHY, startupTimeoutMs: 60_000 });
    const controller = new AbortController();
    const starting = workspace.start({ signal: controller.signal });
    await vi.waitFor(() => expect(isRunning(workspace)).toBe(true), WAIT);
    controller.abort(new Error('changed my mind'));
    await expectRejection(starting, 'ABORTED');
    expect(isRunning(workspace)).toBe(false);
    expect(existsSync(workspace.workingDir)).toBe(false);
    expect(workspace.status).toBe('failed');
  });

  it('rejects bad timing options with INVALID_ARGUMENT naming the field', () => {
    for (const field of ['startupTimeoutMs', 'lifecycleTimeoutMs', 'reconnectTimeoutMs'] as const) {
      expect(() => new ProcessSandboxWorkspace({ [field]: -1 })).toThrow(field);
    }
  });
});
