import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { RemoteWorkspace, WorkspaceError } from '@agent-workspace/core';
import { rejectionOf } from '@agent-workspace/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TcpProxy } from '../test-support/tcp-proxy.js';

const API_KEY = 'client-test-session-key';

function expectCode(error: unknown, code: WorkspaceError['code']): asserts error is WorkspaceError {
  expect(WorkspaceError.isInstance(error, code), `expected ${code}, got ${error}`).toBe(true);
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** `seq first last` output. */
function seq(first: number, last: number): string {
  let text = '';
  for (let i = first; i <= last; i++) text += `${i}\n`;
  return text;
}

/** True once `pid` is gone or a zombie; false if it is still alive after `timeoutMs`. */
async function waitUntilDead(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    const state = stat?.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === undefined || state === 'Z' || state === 'X') return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

let local: string;
beforeAll(async () => {
  local = await mkdtemp(path.join(os.tmpdir(), 'remote-workspace-client-'));
});
afterAll(async () => {
  await rm(local, { recursive: true, force: true });
});

for (const [mode, extensions] of [
  ['streaming exec', true],
  ['OpenHands polling', false],
] as const) {
  describe(`RemoteWorkspace client (${mode})`, () => {
    let server: TestServer;
    const cleanups: Array<() => Promise<void>> = [];
    beforeAll(async () => {
      server = await startTestServer({ sessionApiKeys: [API_KEY], extensions });
    });
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    afterAll(async () => {
      await server.close();
    });

    function workspace(
      options: { host?: string; apiKey?: string; reconnectTimeoutMs?: number } = {},
    ) {
      const created = new RemoteWorkspace({
        host: server.url,
        workingDir: server.dir,
        apiKey: API_KEY,
        ...options,
      });
      cleanups.push(() => created.close());
      return created;
    }

    async function proxy(): Promise<TcpProxy> {
      const created = await TcpProxy.start(server.server.port);
      cleanups.push(() => created.cut());
      return created;
    }

    it('reports the mode it tests in its capabilities', async () => {
      const info = await workspace().serverInfo();
      expect(info.capabilities.includes('agent_workspace.exec_stream_v1')).toBe(extensions);
    });

    it('answers alive() and serverInfo() from the server', async () => {
      const client = workspace();
      expect(await client.alive()).toBe(true);
      expect((await client.serverInfo()).title).toBe('OpenHands Agent Server');
    });

    it('close() kills the commands still running and rejects them with WORKSPACE_CLOSED', async () => {
      const closing = workspace();
      const pidFile = path.join(server.dir, `close-${randomBytes(4).toString('hex')}.pid`);
      let markStarted = () => {};
      const started = new Promise<void>((resolve) => {
        markStarted = resolve;
      });
      const running = closing.executeCommand(`echo $$ > ${pidFile}; echo started; sleep 30`, {
        timeoutMs: 60_000,
        onStdout: () => markStarted(),
      });
      const outcome = rejectionOf(running);
      await started;
      await closing.close();
      expectCode(await outcome, 'WORKSPACE_CLOSED');
      const pid = Number(await readFile(pidFile, 'utf8'));
      expect(await waitUntilDead(pid, 5_000), `command ${pid} survived close()`).toBe(true);
    });

    it('rejects a wrong key with AUTHENTICATION_ERROR on every operation', async () => {
      const source = path.join(local, `auth-${mode}.txt`);
      await writeFile(source, 'x');
      const target = path.join(server.dir, 'auth-target.txt');
      await writeFile(target, 'secret');
      for (const apiKey of ['wrong-key', undefined]) {
        const wrong = workspace({ apiKey });
        const calls: Array<[string, () => Promise<unknown>]> = [
          ['executeCommand', () => wrong.executeCommand('echo should-not-run')],
          ['fileUpload', () => wrong.fileUpload(source, 'uploaded-by-wrong-key.txt')],
          ['fileDownload', () => wrong.fileDownload(target, path.join(local, 'stolen.txt'))],
          ['gitChanges', () => wrong.gitChanges('.')],
          ['gitDiff', () => wrong.gitDiff('auth-target.txt')],
        ];
        for (const [name, call] of calls) {
          const error = await rejectionOf(call());
          expectCode(error, 'AUTHENTICATION_ERROR');
          expect(error.message, name).toContain(server.url);
        }
      }
      const check = await workspace().executeCommand('test -e uploaded-by-wrong-key.txt; echo $?');
      expect(check.stdout).toBe('1\n');
    });

    it('keeps the output of 100 concurrent commands apart', async () => {
      const shared = workspace();
      const indexes = Array.from({ length: 100 }, (_, i) => i);
      const streamed = indexes.map(() => '');
      const results = await Promise.all(
        indexes.map((i) =>
          shared.executeCommand(
            `for j in 1 2 3; do echo "cmd-${i}-$j"; sleep 0.0$((${i} % 4)); done; echo "err-${i}" >&2; exit $((${i} % 7))`,
            {
              timeoutMs: 60_000,
              onStdout: (chunk) => {
                streamed[i] += chunk;
              },
            },
          ),
        ),
      );
      for (const i of indexes) {
        const stdout = `cmd-${i}-1\ncmd-${i}-2\ncmd-${i}-3\n`;
        expect(results[i]).toMatchObject({ stdout, stderr: `err-${i}\n`, exitCode: i % 7 });
        expect(streamed[i]).toBe(stdout);
      }
    }, 60_000);

    it('resumes a command after the connection drops and delivers its output exactly once', async () => {
      const link = await proxy();
      const flaky = workspace({ host: link.url });
      const gate = path.join(server.dir, `gate-${randomBytes(4).toString('hex')}`);
      let streamed = '';
      let markStarted = () => {};
      const started = new Promise<void>((resolve) => {
        markStarted = resolve;
      });
      const running = flaky.executeCommand(
        `seq 1 20000; while [ ! -e ${gate} ]; do sleep 0.02; done; seq 20001 40000`,
        {
          timeoutMs: 60_000,
          onStdout: (chunk) => {
            streamed += chunk;
            if (streamed.endsWith('20000\n')) markStarted();
          },
        },
      );
      await started;
      const connectionsBefore = link.connections;
      await link.cut();
      // Output produced while the link is down must arrive after it comes back.
      await writeFile(gate, '');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await link.restore();
      const result = await running;
      expect(link.connections, 'the client never reconnected').toBeGreaterThan(connectionsBefore);
      expect(result.exitCode).toBe(0);
      expect(result.stdout === seq(1, 40000), 'result stdout differs from seq 1 40000').toBe(true);
      expect(streamed === seq(1, 40000), 'streamed chunks lost or repeated output').toBe(true);
    }, 60_000);

    it('fails with CONNECTION_ERROR, not an exit code, when the server never comes back', async () => {
      const link = await proxy();
      const stranded = workspace({ host: link.url, reconnectTimeoutMs: 1_000 });
      let markStarted = () => {};
      const started = new Promise<void>((resolve) => {
        markStarted = resolve;
      });
      const running = stranded.executeCommand('echo started; sleep 30', {
        timeoutMs: 60_000,
        onStdout: () => markStarted(),
      });
      const outcome = rejectionOf(running);
      await started;
      await link.cut();
      const error = await outcome;
      expectCode(error, 'CONNECTION_ERROR');
      expect(error.message).toContain(link.url);
    }, 30_000);
  });
}

describe('RemoteWorkspace files', () => {
  let server: TestServer;
  let workspace: RemoteWorkspace;
  beforeAll(async () => {
    server = await startTestServer({ sessionApiKeys: [API_KEY], maxUploadBytes: 80 * 1024 ** 2 });
    workspace = new RemoteWorkspace({ host: server.url, workingDir: server.dir, apiKey: API_KEY });
  });
  afterAll(async () => {
    await workspace.close();
    await server.close();
  });

  it('round-trips 64 MiB with the same sha256', async () => {
    const source = path.join(local, 'big.bin');
    const hash = createHash('sha256');
    async function* randomChunks() {
      for (let i = 0; i < 64; i++) {
        const chunk = randomBytes(1024 * 1024);
        hash.update(chunk);
        yield chunk;
      }
    }
    await pipeline(Readable.from(randomChunks()), createWriteStream(source));
    const expected = hash.digest('hex');

    const upload = await workspace.fileUpload(source, 'big/remote.bin');
    expect(upload).toMatchObject({ success: true, fileSize: 64 * 1024 ** 2 });
    expect(await sha256File(path.join(server.dir, 'big', 'remote.bin'))).toBe(expected);

    const back = path.join(local, 'back', 'big.bin');
    const download = await workspace.fileDownload('big/remote.bin', back);
    expect(download).toMatchObject({ success: true, fileSize: 64 * 1024 ** 2 });
    expect(await sha256File(back)).toBe(expected);
  }, 120_000);

  it('refuses a local destination that is a directory or sits below a file', async () => {
    await writeFile(path.join(server.dir, 'small.txt'), 'small');
    const blocker = path.join(local, 'blocker');
    await writeFile(blocker, 'i am a file');
    const below = await workspace.fileDownload('small.txt', path.join(blocker, 'x', 'y.txt'));
    expect(below.success).toBe(false);
    expect(below.error).toContain(`${blocker} is a file`);
    const onto = await workspace.fileDownload('small.txt', local);
    expect(onto.success).toBe(false);
    expect(onto.error).toContain('destination is a directory');
    expect(await readFile(blocker, 'utf8')).toBe('i am a file');
  });

  it('reports an upload over the server limit as success: false with 413', async () => {
    const limited = await startTestServer({ maxUploadBytes: 1024 });
    const client = new RemoteWorkspace({ host: limited.url, workingDir: limited.dir });
    try {
      const source = path.join(local, 'too-big.bin');
      await writeFile(source, randomBytes(4 * 1024 * 1024));
      const result = await client.fileUpload(source, 'too-big.bin');
      expect(result.success).toBe(false);
      expect(result.error).toContain('413');
      const listing = await client.executeCommand('ls -A');
      expect(listing.stdout).toBe('');
    } finally {
      await client.close();
      await limited.close();
    }
  }, 30_000);
});
