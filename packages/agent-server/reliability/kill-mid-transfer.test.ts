import { statSync } from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import { call, multipartFraming, openSocket, requestHead, uploadTarget } from './support/http.js';
import { commandName, descendantsOf, sandboxSkipReason } from './support/processes.js';
import {
  AUTH,
  createScratch,
  KEY,
  partFiles,
  processExists,
  type Scratch,
  ServerProcess,
  waitFor,
} from './support/server-process.js';

const sandboxSkip = sandboxSkipReason('reliability: kill -9 of a --sandbox server');

describe('kill -9 and SIGTERM mid-transfer', () => {
  let scratch: Scratch;
  const servers: ServerProcess[] = [];
  const strays: number[] = [];
  const figures = new Figures('kill -9 mid-transfer');

  beforeAll(async () => {
    scratch = await createScratch('kill');
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      figures.observeRss(server.peakRss);
      await server.stop();
    }
    // Whatever a failed test left running.
    for (const pid of strays.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  });
  afterAll(async () => {
    figures.save();
    await scratch?.remove();
  });

  async function start(flags: string[] = []): Promise<ServerProcess> {
    const server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      flags,
    });
    servers.push(server);
    return server;
  }

  /** Starts an upload of `declared` bytes and keeps writing until the connection dies. */
  async function streamUpload(server: ServerProcess, name: string): Promise<Socket> {
    const framing = multipartFraming();
    const declared = 1024 ** 3;
    const socket = await openSocket(server.port);
    socket.on('error', () => {});
    socket.write(
      requestHead('POST', uploadTarget(path.join(scratch.workingDir, name)), {
        'X-Session-API-Key': KEY,
        'Content-Type': framing.contentType,
        'Content-Length': declared + framing.head.length + framing.tail.length,
      }),
    );
    socket.write(framing.head);
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const pump = (): void => {
      while (!socket.destroyed && socket.write(chunk)) {}
      if (!socket.destroyed) socket.once('drain', pump);
    };
    pump();
    return socket;
  }

  /** Waits until the upload's temporary file holds at least `bytes`; returns its path. */
  async function growingPart(bytes: number): Promise<string> {
    let part: string | undefined;
    const grew = await waitFor(() => {
      part = partFiles(scratch.workingDir)[0];
      return part !== undefined && (statSync(part, { throwIfNoEntry: false })?.size ?? 0) >= bytes;
    }, 20_000);
    expect(grew, 'the upload never reached its temporary file').toBe(true);
    return part as string;
  }

  /** Starts `sleep 1000 & ...; sleep 1000` detached; resolves with the pids it runs. */
  async function startSleepers(server: ServerProcess): Promise<number[]> {
    const started = await call(`${server.url}/api/bash/start_bash_command`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({
        command: 'sleep 1000 & echo "pids $! $$"; sleep 1000',
        timeout: 2000,
      }),
    });
    expect(started.status, started.text).toBe(200);
    const commandId = (started.json as { id: string }).id;
    let pids: number[] = [];
    const printed = await waitFor(async () => {
      const page = await call(
        `${server.url}/api/bash/bash_events/search?kind__eq=BashOutput&command_id__eq=${commandId}`,
        { headers: AUTH },
      );
      const stdout = (page.json as { items: { stdout: string | null }[] }).items
        .map((item) => item.stdout ?? '')
        .join('');
      const match = /pids (\d+) (\d+)/.exec(stdout);
      if (match) pids = [Number(match[1]), Number(match[2])];
      return match !== null;
    }, 15_000);
    expect(printed, 'the command never printed its pids').toBe(true);
    return pids;
  }

  it('(a) removes the .part file of an upload cut by kill -9 when the next server starts', async () => {
    const first = await start();
    const socket = await streamUpload(first, 'killed-upload.bin');
    const part = await growingPart(8 * 1024 * 1024);
    first.kill('SIGKILL');
    await first.exited;
    socket.destroy();
    figures.tried++;
    expect(
      statSync(part, { throwIfNoEntry: false }),
      'the killed server left no .part',
    ).toBeDefined();
    await start();
    const gone = partFiles(scratch.workingDir).length === 0;
    if (gone) figures.rejected++;
    else figures.escapes++;
    expect(partFiles(scratch.workingDir), 'left after the next start').toEqual([]);
  });

  it('(b) ends the processes of a kill -9ed server, background ones too, when the next one starts', async () => {
    const first = await start();
    const [background, shell] = (await startSleepers(first)) as [number, number];
    const foreground = descendantsOf(shell).filter((pid) => commandName(pid) === 'sleep');
    const pids = [background, shell, ...foreground];
    strays.push(...pids);
    expect(foreground.length, 'the foreground sleep').toBe(1);
    first.kill('SIGKILL');
    await first.exited;
    // Without a sandbox nothing ties them to the server: they outlive it...
    expect(pids.filter(processExists), 'alive after the kill').toEqual(pids);
    // ...until the next server with the same runtime directory starts.
    await start();
    figures.tried += pids.length;
    const ended = await waitFor(() => pids.every((pid) => !processExists(pid)), 5000);
    const alive = pids.filter(processExists);
    figures.rejected += pids.length - alive.length;
    figures.escapes += alive.length;
    expect(ended, `still running after the next start: ${alive.join(', ')}`).toBe(true);
  });

  it.skipIf(sandboxSkip !== undefined)(
    '(c) kills the processes of a --sandbox server with it, without a restart',
    async () => {
      const server = await start(['--sandbox']);
      await startSleepers(server);
      const tree = descendantsOf(server.pid);
      const sleepers = tree.filter((pid) => commandName(pid) === 'sleep');
      strays.push(...tree);
      // The command's two sleeps (the sandbox may keep one of its own).
      expect(
        sleepers.length,
        `sleeps among ${tree.map((pid) => `${pid}:${commandName(pid)}`)}`,
      ).toBeGreaterThanOrEqual(2);
      server.kill('SIGKILL');
      await server.exited;
      figures.tried += tree.length;
      const ended = await waitFor(() => tree.every((pid) => !processExists(pid)), 10_000);
      const alive = tree.filter(processExists);
      figures.rejected += tree.length - alive.length;
      figures.escapes += alive.length;
      expect(
        ended,
        `alive 10 s after the server died: ${alive.map((pid) => `${pid}:${commandName(pid)}`)}`,
      ).toBe(true);
    },
  );

  it('(d) exits 0 on SIGTERM during an upload and leaves no .part file', async () => {
    const server = await start();
    const socket = await streamUpload(server, 'terminated-upload.bin');
    await growingPart(8 * 1024 * 1024);
    server.kill('SIGTERM');
    const exit = await Promise.race([
      server.exited,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20_000)),
    ]);
    socket.destroy();
    figures.tried++;
    const clean = exit?.code === 0 && partFiles(scratch.workingDir).length === 0;
    if (clean) figures.rejected++;
    else figures.escapes++;
    expect(exit, `SIGTERM: ${server.stderr}`).toEqual({ code: 0, signal: null });
    expect(partFiles(scratch.workingDir)).toEqual([]);
  });
});
