import { WorkspaceError } from '../errors/workspace-error.js';
import { findExecutable, SYSTEM_PATH } from '../internal/process/find-executable.js';

/** Absolute host paths of the programs a bubblewrap sandbox runs. */
export interface SandboxTools {
  bwrap: string;
  nsenter: string;
  setpriv: string;
  env: string;
  sh: string;
  /** `unshare`, `umount` and `mount`: give a launch its scratch (see `enterSandboxPrefix`). */
  unshare: string;
  umount: string;
  mount: string;
}

/** Each tool and the Debian package that provides it. */
const PACKAGES: Readonly<Record<keyof SandboxTools, string>> = {
  bwrap: 'bubblewrap',
  nsenter: 'util-linux',
  setpriv: 'util-linux',
  env: 'coreutils',
  sh: 'dash',
  unshare: 'util-linux',
  umount: 'mount',
  mount: 'mount',
};

let cached: SandboxTools | undefined;

/**
 * Why a bubblewrap sandbox cannot run on this machine (not Linux, or a tool missing from the
 * system directories), or `undefined` when it can.
 */
export function sandboxUnsupportedReason(): string | undefined {
  try {
    sandboxTools();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Finds the sandbox tools in the system directories (never the caller's `PATH`), once.
 *
 * @throws WorkspaceError `NOT_SUPPORTED` off Linux or naming the missing tool and its package.
 */
export function sandboxTools(): SandboxTools {
  if (cached) return cached;
  if (process.platform !== 'linux') {
    throw new WorkspaceError({
      code: 'NOT_SUPPORTED',
      message: `command sandbox needs Linux with bubblewrap (this is ${process.platform})`,
    });
  }
  const found: Partial<SandboxTools> = {};
  for (const [tool, debianPackage] of Object.entries(PACKAGES)) {
    const location = findExecutable(tool, SYSTEM_PATH);
    if (location === undefined) {
      throw new WorkspaceError({
        code: 'NOT_SUPPORTED',
        message: `command sandbox needs ${tool}, which is not installed (Debian/Ubuntu: apt-get install ${debianPackage})`,
        details: { program: tool, package: debianPackage },
      });
    }
    found[tool as keyof SandboxTools] = location;
  }
  cached = found as SandboxTools;
  return cached;
}
