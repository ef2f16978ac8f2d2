import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellQuote } from '../internal/process/shell-quote.js';
import type { ContractContext } from './contract-context.js';

const LARGE_FILE_BYTES = 3 * 1024 * 1024;
const LARGE_TIMEOUT_MS = 120_000;
const TIMEOUT_MS = 60_000;

/**
 * File section of the workspace contract: `fileUpload` / `fileDownload` between the caller's
 * machine (plain `node:fs` in the OS temp directory) and the workspace (seen only through the
 * `Workspace` interface). Covers binary round trips, empty files, parent creation, relative
 * workspace paths, overwrite, and failures that must be `success: false` without leaving a
 * partial destination.
 */
export function describeFileContract(context: ContractContext): void {
  describe('files', () => {
    let local: string;
    beforeAll(async () => {
      local = await mkdtemp(path.join(tmpdir(), 'workspace-file-contract-'));
    });
    afterAll(async () => {
      await rm(local, { recursive: true, force: true });
    });

    /** Runs a command in the workspace that must succeed; returns its stdout. */
    const run = async (command: string): Promise<string> => {
      const result = await context.workspace().executeCommand(command);
      expect(result.exitCode, `${command}\n${result.stderr}`).toBe(0);
      return result.stdout;
    };
    /** Byte size of a workspace file, measured inside the workspace. */
    const remoteSize = async (file: string): Promise<number> =>
      Number((await run(`wc -c < ${shellQuote(file)}`)).trim());
    /** Entries of a workspace directory, hidden ones included, sorted. */
    const remoteList = async (dir: string): Promise<string[]> =>
      (await run(`ls -A ${shellQuote(dir)}`)).split('\n').filter(Boolean).sort();
    const remoteExists = async (target: string): Promise<boolean> =>
      (await context.workspace().executeCommand(`test -e ${shellQuote(target)}`)).exitCode === 0;
    /** Writes a file on the caller's machine and returns its path. */
    const localFile = async (name: string, content: Buffer | string): Promise<string> => {
      const file = path.join(local, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
      return file;
    };

    it(
      'uploads and downloads random binary data unchanged',
      async () => {
        const workspace = context.workspace();
        const scratch = await context.scratchDir('file-round-trip');
        const content = randomBytes(LARGE_FILE_BYTES);
        const source = await localFile('round-trip/source.bin', content);
        const remote = `${scratch}/data.bin`;
        const back = path.join(local, 'round-trip', 'back.bin');

        const upload = await workspace.fileUpload(source, remote);
        expect(upload.success, upload.error).toBe(true);
        expect(upload.error).toBeUndefined();
        if (upload.fileSize !== undefined) expect(upload.fileSize).toBe(content.length);
        expect(await remoteSize(remote)).toBe(content.length);

        const download = await workspace.fileDownload(remote, back);
        expect(download.success, download.error).toBe(true);
        if (download.fileSize !== undefined) expect(download.fileSize).toBe(content.length);
        const received = await readFile(back);
        expect(received.length).toBe(content.length);
        expect(sha256(received)).toBe(sha256(content));
        // Nothing but the file itself: no temporary files left next to it.
        expect(await remoteList(scratch)).toEqual(['data.bin']);
      },
      LARGE_TIMEOUT_MS,
    );

    it(
      'transfers an empty file',
      async () => {
        const workspace = context.workspace();
        const scratch = await context.scratchDir('file-empty');
        const source = await localFile('empty/source', '');
        const back = path.join(local, 'empty', 'back');

        const upload = await workspace.fileUpload(source, `${scratch}/empty`);
        expect(upload.success, upload.error).toBe(true);
        expect(await remoteSize(`${scratch}/empty`)).toBe(0);

        const download = await workspace.fileDownload(`${scratch}/empty`, back);
        expect(download.success, download.error).toBe(true);
        expect((await stat(back)).size).toBe(0);
      },
      TIMEOUT_MS,
    );

    it(
      'creates missing parent directories on both sides',
      async () => {
        const workspace = context.workspace();
        const scratch = await context.scratchDir('file-parents');
        const source = await localFile('parents/source.txt', 'nested content\n');
        const remote = `${scratch}/a/b/c/file.txt`;
        const back = path.join(local, 'parents', 'x', 'y', 'z', 'file.txt');

        const upload = await workspace.fileUpload(source, remote);
        expect(upload.success, upload.error).toBe(true);
        expect(await run(`cat ${shellQuote(remote)}`)).toBe('nested content\n');

        const download = await workspace.fileDownload(remote, back);
        expect(download.success, download.error).toBe(true);
        expect(await readFile(back, 'utf8')).toBe('nested content\n');
      },
      TIMEOUT_MS,
    );

    it(
      'resolves relative workspace paths against workingDir',
      async () => {
        const workspace = context.workspace();
        const scratch = await context.scratchDir('file-relative');
        const relative = path.posix.join(
          path.posix.relative(workspace.workingDir, scratch),
          'relative.txt',
        );
        expect(path.posix.isAbsolute(relative)).toBe(false);
        const source = await localFile('relative/source.txt', 'relative content');
        const back = path.join(local, 'relative', 'back.txt');

        const upload = await workspace.fileUpload(source, relative);
        expect(upload.success, upload.error).toBe(true);
        // Read it back through its absolute path: it must sit under workingDir.
        expect(await run(`cat ${shellQuote(`${scratch}/relative.txt`)}`)).toBe('relative content');

        const download = await workspace.fileDownload(relative, back);
        expect(download.success, download.error).toBe(true);
        expect(await readFile(back, 'utf8')).toBe('relative content');
      },
      TIMEOUT_MS,
    );

    it(
      'overwrites existing files completely',
      async () => {
        const workspace = context.workspace();
        const scratch = await context.scratchDir('file-overwrite');
        const remote = `${scratch}/file.txt`;
        const long = await localFile('overwrite/long.txt', 'a much longer first version\n');
        const short = await localFile('overwrite/short.txt', 'v2\n');
        const back = await localFile('overwrite/back.txt', 'stale local content, longer\n');

        expect((await workspace.fileUpload(long, remote)).success).toBe(true);
        const upload = await workspace.fileUpload(short, remote);
        expect(upload.success, upload.error).toBe(true);
        expect(await run(`cat ${shellQuote(remote)}`)).toBe('v2\n');

        const download = await workspace.fileDownload(remote, back);
        expect(download.success, download.error).toBe(true);
        expect(await readFile(back, 'utf8')).toBe('v2\n');
        expect(await remoteList(scratch)).toEqual(['file.txt']);
      },
      TIMEOUT_MS,
    );

    it(
      'fails to upload a missing local file and keeps the destination',
      async () => {
        const workspace = context.workspace();
        const scratch = await context.scratchDir('file-missing-source');
        const missing = path.join(local, 'missing', 'does-not-exist.bin');
        await run(`printf keep > ${shellQuote(`${scratch}/existing.txt`)}`);

        const fresh = await workspace.fileUpload(missing, `${scratch}/new.txt`);
        expect(fresh.success).toBe(false);
        expectErrorMessage(fresh.error);
        expect(await remoteExists(`${scratch}/new.txt`)).toBe(false);

        const over = await workspace.fileUpload(missing, `${scratch}/existing.txt`);
        expect(over.success).toBe(false);
        expectErrorMessage(over.error);
        expect(await run(`cat ${shellQuote(`${scratch}/existing.txt`)}`)).toBe('keep');
        expect(await remoteList(scratch)).toEqual(['existing.txt']);
      },
      TIMEOUT_MS,
    );

    it(
      'fails to download a missing workspace file',
      async () => {
        const workspace = context.workspace();
        const scratch = await context.scratchDir('file-missing-remote');
        const back = path.join(local, 'missing-remote', 'back.txt');

        const result = await workspace.fileDownload(`${scratch}/nope.txt`, back);

        expect(result.success).toBe(false);
        expectErrorMessage(result.error);
        await expect(stat(back)).rejects.toMatchObject({ code: 'ENOENT' });
      },
      TIMEOUT_MS,
    );

    it(
      'fails to download a workspace directory',
      async () => {
        const workspace = context.workspace();
        const scratch = await context.scratchDir('file-download-dir');
        await run(
          `mkdir -p ${shellQuote(`${scratch}/dir`)} && printf x > ${shellQuote(`${scratch}/dir/f`)}`,
        );
        const back = path.join(local, 'download-dir', 'back');

        const result = await workspace.fileDownload(`${scratch}/dir`, back);

        expect(result.success).toBe(false);
        expectErrorMessage(result.error);
        await expect(stat(back)).rejects.toMatchObject({ code: 'ENOENT' });
      },
      TIMEOUT_MS,
    );

    it(
      'fails to upload below a workspace file',
      async () => {
        const workspace = context.workspace();
        const scratch = await context.scratchDir('file-parent-is-file');
        const blocker = `${scratch}/blocker`;
        await run(`printf 'i am a file' > ${shellQuote(blocker)}`);
        const source = await localFile('parent-is-file/source.txt', 'content');

        const result = await workspace.fileUpload(source, `${blocker}/child.txt`);

        expect(result.success).toBe(false);
        expectErrorMessage(result.error);
        expect(await run(`cat ${shellQuote(blocker)}`)).toBe('i am a file');
        expect(await remoteList(scratch)).toEqual(['blocker']);
      },
      TIMEOUT_MS,
    );
  });
}

/** A failed transfer explains itself. */
function expectErrorMessage(error: string | undefined): void {
  expect(typeof error).toBe('string');
  expect(error?.trim().length).toBeGreaterThan(0);
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
