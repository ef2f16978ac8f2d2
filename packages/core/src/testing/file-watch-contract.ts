import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../internal/process/shell-quote.js';
import { type FileWatch, type FileWatchEvent, fileWatchOf } from '../workspace/file-watch.js';
import type { ContractContext } from './contract-context.js';
import { expectRejection } from './rejection-of.js';

const TEST_TIMEOUT_MS = 60_000;
/** How long a test waits for an event before failing. */
const EVENT_WAIT_MS = 15_000;

/** Reads `events` until one satisfies `until`; fails after `EVENT_WAIT_MS` or at the end. */
async function waitForEvent(
  events: AsyncIterator<FileWatchEvent>,
  until: (event: FileWatchEvent) => boolean,
): Promise<FileWatchEvent> {
  const seen: FileWatchEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no matching event; saw ${JSON.stringify(seen)}`)),
      EVENT_WAIT_MS,
    );
  });
  try {
    for (;;) {
      const next = await Promise.race([events.next(), timeout]);
      if (next.done) throw new Error(`the watcher ended; saw ${JSON.stringify(seen)}`);
      seen.push(next.value);
      if (until(next.value)) return next.value;
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * File-watch section of the workspace contract, for a workspace that declares the `fileWatch`
 * capability (`fileWatchOf`): a watcher sees files the agent writes with `executeCommand` and
 * `fileUpload` (relative POSIX paths), `recursive` sees nested ones, closing ends the iteration,
 * bad paths are refused naming `path`, and `watch` is `WORKSPACE_CLOSED` after `close()`. A
 * workspace that does not declare it must not be reachable through `fileWatchOf`.
 */
export function describeFileWatchContract(context: ContractContext): void {
  /** The workspace's watch, or `undefined` after checking it really declares none. */
  const watchOrUndeclared = (): FileWatch | undefined => {
    const watch = fileWatchOf(context.workspace());
    if (watch === undefined)
      expect(context.workspace().capabilities?.fileWatch ?? false).toBe(false);
    return watch;
  };

  describe('file watch', () => {
    it(
      'a watcher sees the files the agent writes, and ends when closed',
      async () => {
        const fileWatch = watchOrUndeclared();
        if (fileWatch === undefined) return;
        const dir = await context.scratchDir('watch');
        const watcher = await fileWatch.watch(dir, { recursive: true });
        try {
          const events = watcher[Symbol.asyncIterator]();
          const workspace = context.workspace();
          await workspace.executeCommand(`mkdir -p ${shellQuote(`${dir}/nested`)}`);
          await workspace.executeCommand(`echo hi > ${shellQuote(`${dir}/nested/by-command.txt`)}`);
          expect(
            await waitForEvent(events, (event) => event.path === 'nested/by-command.txt'),
          ).toMatchObject({ isDirectory: false });

          const local = await mkdtemp(path.join(tmpdir(), 'file-watch-contract-'));
          try {
            await writeFile(path.join(local, 'up.txt'), 'up');
            await workspace.fileUpload(path.join(local, 'up.txt'), `${dir}/uploaded.txt`);
          } finally {
            await rm(local, { recursive: true, force: true });
          }
          const uploaded = await waitForEvent(
            events,
            (event) => event.path === 'uploaded.txt' && event.type !== 'remove',
          );
          expect(['create', 'write']).toContain(uploaded.type);

          const pending = events.next();
          await watcher.close();
          expect(await pending).toMatchObject({ done: true });
        } finally {
          await watcher.close();
        }
      },
      TEST_TIMEOUT_MS,
    );

    it('refuses bad paths naming the field', async () => {
      const fileWatch = watchOrUndeclared();
      if (fileWatch === undefined) return;
      const empty = await expectRejection(fileWatch.watch(''), 'INVALID_ARGUMENT');
      expect(empty.details).toMatchObject({ field: 'path' });
      const dir = await context.scratchDir('watch-missing');
      await expectRejection(fileWatch.watch(`${dir}/missing`), 'NOT_FOUND');
    });

    it(
      'watch is WORKSPACE_CLOSED after close()',
      async () => {
        const workspace = await context.makeWorkspace();
        await workspace.close();
        const fileWatch = fileWatchOf(workspace);
        if (fileWatch === undefined) return;
        await expectRejection(fileWatch.watch('.'), 'WORKSPACE_CLOSED');
      },
      TEST_TIMEOUT_MS,
    );
  });
}
