import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { removeTemporaryEntry } from '@agent-workspace/core/internal';
import { endProcesses } from './end-processes.js';
import { findMarkedProcesses } from './find-marked-processes.js';
import { type InstanceIdentity, isSameInstanceAlive, thisInstance } from './instance-identity.js';

/** Variable every command of a server gets: the server instance's id, to find its leftovers. */
export const INSTANCE_VARIABLE = 'AGENT_SERVER_INSTANCE';

/** Journal size that triggers a rewrite with only the live entries. */
const COMPACT_BYTES = 256 * 1024;

/** What a start-up sweep found of servers that died without closing. */
export interface SweepReport {
  /** Dead server instances found. */
  instances: number;
  /** Their leftover processes, ended. */
  processes: number;
  /** Their temporary upload files and staged extraction directories, removed. */
  temporaryFiles: number;
  /** Their private directories (`<id>.d`, the plugins' files), removed. */
  privateDirectories: number;
}

/** The default runtime directory: `$XDG_RUNTIME_DIR/agent-server`, else `<tmp>/agent-server-<uid>`. */
export function defaultRuntimeDir(): string {
  const runtime = process.env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) return path.join(runtime, 'agent-server');
  return path.join(os.tmpdir(), `agent-server-${process.getuid?.() ?? 'user'}`);
}

/**
 * What a server owns outside its own memory, written down so that the next server to start can
 * clean up after one that was killed (`kill -9`, power loss): one journal per running instance
 * in a private runtime directory, holding the instance's identity (pid, start time, boot) and its
 * temporary upload files. Every command gets {@link INSTANCE_VARIABLE}, so processes the
 * instance started, background ones included, are found by their environment.
 *
 * `open` sweeps the journals of dead instances: it ends their processes and removes their
 * temporary files. `close` ends this instance's own leftover processes and removes its journal.
 */
export class InstanceRegistry {
  readonly id: string;
  readonly runtimeDir: string;
  readonly #file: string;
  readonly #identity: InstanceIdentity;
  readonly #temporaryFiles = new Set<string>();
  #fd: number;
  #bytes = 0;

  private constructor(runtimeDir: string) {
    this.id = randomBytes(16).toString('hex');
    this.runtimeDir = runtimeDir;
    this.#file = path.join(runtimeDir, `${this.id}.jsonl`);
    this.#identity = thisInstance();
    this.#fd = this.#writeJournal();
  }

  /**
   * Creates (or checks) the private runtime directory, sweeps what dead instances left and
   * registers this one.
   * @throws WorkspaceError `INVALID_ARGUMENT` (field `runtimeDir`) when the directory is not a
   * directory owned by this user and closed to others.
   */
  static async open(
    runtimeDir = defaultRuntimeDir(),
  ): Promise<{ registry: InstanceRegistry; sweep: SweepReport }> {
    preparePrivateDirectory(runtimeDir);
    const sweep = await sweepDeadInstances(runtimeDir);
    return { registry: new InstanceRegistry(runtimeDir), sweep };
  }

  /** The variables every command of this instance gets. */
  get environment(): Record<string, string> {
    return { [INSTANCE_VARIABLE]: this.id };
  }

  /**
   * This instance's private directory, `<runtimeDir>/<id>.d` (mode 0700, created on first use):
   * for files of its own that must outlive no crash, such as the runtime plugins' when the
   * server has no state directory. `close()` removes it, and so does the sweep of a dead
   * instance.
   */
  privateDirectory(): string {
    const dir = privateDirectoryOf(this.runtimeDir, this.id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /** Records that a temporary file was created (`created`) or renamed or removed (`gone`). */
  temporaryFile(event: 'created' | 'gone', file: string): void {
    if (event === 'created') this.#temporaryFiles.add(file);
    else this.#temporaryFiles.delete(file);
    this.#append({ [event]: file });
  }

  /** Ends the processes this instance's commands left running and removes its journal. */
  async close(): Promise<number> {
    const ended = await endProcesses(findMarkedProcesses(INSTANCE_VARIABLE, this.id));
    for (const file of this.#temporaryFiles) removeTemporaryFile(file);
    rmSync(privateDirectoryOf(this.runtimeDir, this.id), { recursive: true, force: true });
    closeSync(this.#fd);
    unlinkSync(this.#file);
    return ended;
  }

  #append(entry: Record<string, string>): void {
    const line = `${JSON.stringify(entry)}\n`;
    this.#bytes += Buffer.byteLength(line);
    writeSync(this.#fd, line);
    if (this.#bytes > COMPACT_BYTES) {
      closeSync(this.#fd);
      this.#fd = this.#writeJournal();
    }
  }

  /** Writes the journal afresh (identity, then live temporary files); returns it open for appends. */
  #writeJournal(): number {
    const lines = [this.#identity, ...[...this.#temporaryFiles].map((file) => ({ created: file }))];
    const text = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    const temporary = `${this.#file}.tmp`;
    writeFileSync(temporary, text, { mode: 0o600 });
    renameSync(temporary, this.#file);
    this.#bytes = Buffer.byteLength(text);
    return openSync(this.#file, 'a');
  }
}

function preparePrivateDirectory(dir: string): void {
  const invalid = (reason: string) =>
    new WorkspaceError({
      code: 'INVALID_ARGUMENT',
      message: `runtimeDir ${reason}: ${dir}`,
      details: { field: 'runtimeDir' },
    });
  if (!path.isAbsolute(dir)) throw invalid('must be an absolute path');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stats = lstatSync(dir);
  if (!stats.isDirectory()) throw invalid('must be a directory, not a link or a file');
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) throw invalid('must be owned by this user');
  if ((stats.mode & 0o077) !== 0) throw invalid('must not be open to other users (mode 0700)');
}

/** Ends the processes and removes the temporary files of every dead instance in `dir`. */
async function sweepDeadInstances(dir: string): Promise<SweepReport> {
  const report: SweepReport = {
    instances: 0,
    processes: 0,
    temporaryFiles: 0,
    privateDirectories: 0,
  };
  for (const entry of readdirSync(dir)) {
    const match = /^([0-9a-f]{32})\.jsonl$/.exec(entry);
    if (!match) continue;
    const file = path.join(dir, entry);
    // Gone since the listing: an instance closed, or another starting one swept it.
    const journal = readJournalIfPresent(file);
    if (!journal || (journal.identity && isSameInstanceAlive(journal.identity))) continue;
    report.instances++;
    report.processes += await endProcesses(
      findMarkedProcesses(INSTANCE_VARIABLE, match[1] as string),
    );
    for (const temporary of journal.temporaryFiles) {
      if (removeTemporaryFile(temporary)) report.temporaryFiles++;
    }
    const privateDir = privateDirectoryOf(dir, match[1] as string);
    if (existsSync(privateDir)) {
      rmSync(privateDir, { recursive: true, force: true });
      report.privateDirectories++;
    }
    // Servers starting at once may sweep one dead instance together: every step tolerates that.
    rmSync(file, { force: true });
  }
  return report;
}

/** {@link readJournal}, or `undefined` when the file no longer exists. */
function readJournalIfPresent(file: string): ReturnType<typeof readJournal> | undefined {
  try {
    return readJournal(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The private directory of instance `id` in the runtime directory `dir`. */
function privateDirectoryOf(dir: string, id: string): string {
  return path.join(dir, `${id}.d`);
}

/** Reads a journal; lines torn by a crash are skipped. */
function readJournal(file: string): { identity?: InstanceIdentity; temporaryFiles: Set<string> } {
  const temporaryFiles = new Set<string>();
  let identity: InstanceIdentity | undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof entry.pid === 'number') identity = entry as unknown as InstanceIdentity;
    else if (typeof entry.created === 'string') temporaryFiles.add(entry.created);
    else if (typeof entry.gone === 'string') temporaryFiles.delete(entry.gone);
  }
  return { ...(identity && { identity }), temporaryFiles };
}

/**
 * Removes a temporary upload file or a staged extraction directory (`.archive.<hex>.part`, with
 * what it holds) named in a journal; true if it was there. Only a temporary name is touched, and
 * no link is followed, not even one swapped in for a parent meanwhile (`removeTemporaryEntry`
 * opens each component relative to the descriptor of the one before). Another sweeper removing
 * the same entry at once is fine; an entry that cannot be removed is left for the next sweep.
 */
function removeTemporaryFile(file: string): boolean {
  try {
    return removeTemporaryEntry(file);
  } catch {
    return false;
  }
}
