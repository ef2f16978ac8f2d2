import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { abortedError } from '@agent-workspace/core';
import { execa } from 'execa';
import { imageStreamError, LOG_TAIL_LINES } from './follow-image-stream.js';
import type { ImageProgressListener } from './image-progress.js';

/** Options of {@link runDebootstrap}. */
export interface RunDebootstrapOptions {
  suite: string;
  mirror: string;
  /** Packages added to the minbase variant. */
  include: readonly string[];
  /** An empty folder to install into. */
  targetDir: string;
  /** Stops the work (and cleans up); the call then rejects with `ABORTED`. */
  signal?: AbortSignal;
  /** Receives progress events. */
  onProgress?: ImageProgressListener;
}

/** debootstrap lives in sbin, which a non-login PATH may lack. */
const PATH_WITH_SBIN = `${process.env.PATH ?? ''}:/usr/local/sbin:/usr/sbin:/sbin`;

/**
 * Installs a minimal Debian (`debootstrap --variant=minbase --include=...`) into `targetDir`,
 * reporting each output line. A failure is a `PROVISIONING_ERROR` {@link WorkspaceError} with
 * the last lines of debootstrap's output and of its `debootstrap.log`.
 */
export async function runDebootstrap(options: RunDebootstrapOptions): Promise<void> {
  const { signal, onProgress } = options;
  const args = [
    '--variant=minbase',
    `--include=${options.include.join(',')}`,
    options.suite,
    options.targetDir,
    options.mirror,
  ];
  const subprocess = execa('debootstrap', args, {
    all: true,
    buffer: false,
    reject: false,
    cancelSignal: signal,
    forceKillAfterDelay: 10_000,
    env: { PATH: PATH_WITH_SBIN, DEBIAN_FRONTEND: 'noninteractive' },
  });
  const output: string[] = [];
  for await (const line of subprocess.iterable({ from: 'all' })) {
    output.push(line);
    if (output.length > LOG_TAIL_LINES) output.shift();
    onProgress?.({ type: 'log', message: line });
  }
  const result = await subprocess;
  if (signal?.aborted) throw abortedError(signal);
  if (!result.failed) return;
  const logFile = path.join(options.targetDir, 'debootstrap/debootstrap.log');
  const log = (await readFile(logFile, 'utf8').catch(() => '')).trimEnd().split('\n');
  throw imageStreamError({
    operation: `debootstrap of ${options.suite} from ${options.mirror}`,
    reason: result.shortMessage ?? `exit code ${result.exitCode}`,
    log: [
      ...output,
      ...(log.length > 1 ? ['--- debootstrap.log ---', ...log.slice(-LOG_TAIL_LINES)] : []),
    ],
    cause: result,
    details: { suite: options.suite, mirror: options.mirror },
  });
}
