import { WorkspaceError } from '@agent-workspace/core';
import {
  type LocalCommandHandle,
  openDirectory,
  type PathWalker,
  PROC_FD_WALKS,
  type StartLocalCommandOptions,
  startLocalCommand,
} from '@agent-workspace/core/internal';
import { isDescriptorExhaustion, shedIdleConnections } from '../app/shed-idle-connections.js';

/** Options of {@link launchBashCommand}. */
export interface LaunchBashCommandOptions extends Omit<StartLocalCommandOptions, 'cwd'> {
  /** Resolves `cwd`, confined to the working directory when the server is. */
  paths: PathWalker;
  /** The client's cwd (absolute or relative to the working directory); default the working dir. */
  cwd: string | undefined;
}

/** A started command and the real path of the directory it runs in. */
export interface LaunchedBashCommand {
  handle: LocalCommandHandle;
  cwd: string;
}

/**
 * Opens the command's cwd through `paths` and starts the command in exactly that directory: on
 * Linux the shell is handed the open directory as `/proc/self/fd/<fd>` (the child enters it
 * before it runs anything), so a path component swapped for a symbolic link after the check
 * changes nothing; inside a command sandbox, whose mount namespace has its own `/proc`, the real
 * path is used, and the sandbox shows nothing outside the working directory anyway.
 *
 * @throws WorkspaceError: a path error naming `cwd` (`NOT_FOUND`, `INVALID_ARGUMENT`,
 * `FORBIDDEN`), those of `startLocalCommand`, and `SPAWN_ERROR` (with `details.errno`, e.g.
 * `EMFILE`) when the shell could not be started; nothing runs then (and, out of descriptors,
 * the server's idle keep-alive connections are shed).
 */
export async function launchBashCommand(
  options: LaunchBashCommandOptions,
): Promise<LaunchedBashCommand> {
  const { paths, cwd, ...start } = options;
  const directory = openDirectory(paths, cwd ?? paths.workingDir, 'cwd');
  let handle: LocalCommandHandle;
  let realPath: string;
  try {
    realPath = directory.realPath();
    const useDescriptor = PROC_FD_WALKS && start.sandbox === undefined;
    handle = startLocalCommand({ ...start, cwd: useDescriptor ? directory.ref : realPath });
  } finally {
    // The child has entered the directory (or failed to start) once spawn returned.
    directory.close();
  }
  if (handle.pid === undefined) {
    const failure = await handle.result.then(
      () => undefined,
      (error: unknown) => error,
    );
    // Out of descriptors: idle keep-alive connections give some back for the next try.
    if (isDescriptorExhaustion(failure)) shedIdleConnections();
    throw (
      failure ??
      new WorkspaceError({ code: 'SPAWN_ERROR', message: 'the shell could not be started' })
    );
  }
  return { handle, cwd: realPath };
}
