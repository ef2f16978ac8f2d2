import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { mkdir, rename, symlink } from 'node:fs/promises';
import type { Socket } from 'node:net';
import path from 'node:path';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import { openSocket, requestHead } from './support/http.js';
import {
  createScratch,
  findEntries,
  KEY,
  partFiles,
  type Scratch,
  ServerProcess,
  waitFor,
} from './support/server-process.js';
import { buildTar, type TarEntry } from './support/tar.js';

/** A staged extraction directory's name. */
const STAGED = /^\.archive\.[0-9a-f]{12}\.part$/;

/** Every staged extraction directory under `dir`, at any depth (none while `dir` is missing). */
function stagedDirectories(dir: string): string[] {
  return findEntries(dir, (entry) => entry.isDirectory() && STAGED.test(entry.name));
}

describe('kill -9 mid-extraction of a directory archive', () => {
  let scratch: Scratch;
  const servers: ServerProcess[] = [];
  const sockets: Socket[] = [];
  const figures = new Figures('kill -9 mid-extraction');

  beforeAll(async () => {
    scratch = await createScratch('kill-extract');
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    for (const server of servers.splice(0)) {
      figures.observeRss(server.peakRss);
      await server.stop();
    }
  });
  afterAll(async () => {
    figures.save();
    await scratch?.remove();
  });

  async function start(): Promise<ServerProcess> {
    const server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
    });
    servers.push(server);
    return server;
  }

  /**
   * Posts an archive of `tree/` (many small files, then a large one) into `destination`, sends
   * all of it but the large file's end and holds the connection open: the server is left
   * mid-extraction, with `tree` staged and the large file half-written.
   */
  async function stallExtraction(server: ServerProcess, destination: string): Promise<void> {
    const entries: TarEntry[] = [{ name: 'tree/', type: 'directory' }];
    for (let i = 0; i < 200; i++) {
      entries.push({ name: `tree/d${i % 10}/f${i}.txt`, content: `file ${i}\n` });
    }
    entries.push({ name: 'tree/big.bin', content: Buffer.alloc(4 * 1024 * 1024, 0x62) });
    const archive = await buildTar(entries);
    const socket = await openSocket(server.port);
    sockets.push(socket);
    socket.on('error', () => {});
    const target = `${AGENT_SERVER_ROUTES.directoryArchive}?${new URLSearchParams({ path: destination })}`;
    socket.write(
      requestHead('POST', target, {
        'X-Session-API-Key': KEY,
        'Content-Type': 'application/x-tar',
        'Content-Length': archive.length,
      }),
    );
    socket.write(archive.subarray(0, archive.length - 1024 * 1024));
  }

  /** Waits until `destination` holds a staged directory with a half-written file in it. */
  async function waitMidExtraction(destination: string): Promise<string> {
    let staged: string | undefined;
    const reached = await waitFor(() => {
      staged = stagedDirectories(destination)[0];
      return staged !== undefined && partFiles(staged).length > 0;
    }, 20_000);
    expect(reached, `never mid-extraction in ${destination}`).toBe(true);
    return staged as string;
  }

  it('removes the staged directory at the next start, publishing nothing, and follows no link swapped in for its parent', async () => {
    const first = await start();
    const plain = path.join(scratch.workingDir, 'plain');
    const swapped = path.join(scratch.workingDir, 'swapped');
    await stallExtraction(first, plain);
    await stallExtraction(first, swapped);
    const stagedPlain = await waitMidExtraction(plain);
    const stagedSwapped = await waitMidExtraction(swapped);
    first.kill('SIGKILL');
    await first.exited;
    figures.tried += 2;
    expect(existsSync(stagedPlain), 'the killed server left its staged directory').toBe(true);
    // The parent of the second staged directory is now a link to a directory elsewhere.
    const elsewhere = path.join(scratch.base, 'elsewhere');
    await mkdir(path.dirname(elsewhere), { recursive: true });
    await rename(swapped, elsewhere);
    await symlink(elsewhere, swapped);

    await start();
    const plainClean = stagedDirectories(plain).length === 0 && partFiles(plain).length === 0;
    const behindLink = path.join(elsewhere, path.basename(stagedSwapped));
    const linkNotFollowed = existsSync(behindLink);
    figures.rejected += Number(plainClean) + Number(linkNotFollowed);
    figures.escapes += Number(!plainClean) + Number(!linkNotFollowed);
    // Nothing half-extracted was published, and nothing staged is left.
    expect(readdirSync(plain)).toEqual([]);
    expect(partFiles(plain)).toEqual([]);
    // The sweep did not follow the link: what lies behind it is untouched.
    expect(lstatSync(swapped).isSymbolicLink()).toBe(true);
    expect(linkNotFollowed, 'the sweep followed a link swapped in for a parent').toBe(true);
    expect(readdirSync(behindLink)).toContain('d0');
  });
});
