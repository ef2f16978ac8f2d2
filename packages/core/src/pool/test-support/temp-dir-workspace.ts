import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { WorkspaceError } from '../../errors/workspace-error.js';
import { registerWorkspaceType } from '../../factory/workspace-registry.js';
import { LocalWorkspace } from '../../local/local-workspace.js';

/** The kind the pool tests register: a "sandbox" that is a fresh temporary directory. */
export const TEMP_DIR_KIND = 'pool-test-temp-dir';

/** The file {@link TempDirWorkspace.initialize} writes the delivered keys to. */
export const INIT_FILE = '.initialized';

/**
 * A provisioned workspace whose sandbox is a directory made under `root` at start and removed at
 * close; `alive()` says whether the directory still exists (delete it to "kill" the sandbox).
 * Like a dormant agent-server it initializes once: `initialize()` writes {@link INIT_FILE}.
 */
export class TempDirWorkspace extends LocalWorkspace {
  override readonly kind = TEMP_DIR_KIND;

  /** Makes the directory (fails when `root` is missing) and returns the workspace on it. */
  static async start({
    root,
    signal,
  }: {
    root: string;
    signal?: AbortSignal;
  }): Promise<TempDirWorkspace> {
    signal?.throwIfAborted();
    return new TempDirWorkspace({ workingDir: await mkdtemp(path.join(root, 'member-')) });
  }

  /** Whether the sandbox still exists; false once closed. */
  async alive(): Promise<boolean> {
    return !this.closed && existsSync(this.workingDir);
  }

  /** Writes the keys to {@link INIT_FILE}; a second call is `ALREADY_EXISTS`, as on a server. */
  async initialize({ sessionApiKeys = [] }: { sessionApiKeys?: string[] } = {}): Promise<void> {
    try {
      await writeFile(path.join(this.workingDir, INIT_FILE), sessionApiKeys.join('\n'), {
        flag: 'wx',
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      throw new WorkspaceError({ code: 'ALREADY_EXISTS', message: 'initialized before' });
    }
  }

  protected override async runClose(): Promise<void> {
    await super.runClose();
    await rm(this.workingDir, { recursive: true, force: true });
  }
}

/** Registers {@link TEMP_DIR_KIND} (`{ kind, root }`); returns the unregister function. */
export function registerTempDirKind(): () => void {
  return registerWorkspaceType({
    kind: TEMP_DIR_KIND,
    schema: z.strictObject({ kind: z.literal(TEMP_DIR_KIND), root: z.string().min(1) }),
    create: ({ root }) => TempDirWorkspace.start({ root }),
  });
}

/** Member directories that exist under `root` now (one per live member). */
export async function liveMembers(root: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir(root)).filter((name) => name.startsWith('member-'));
}
