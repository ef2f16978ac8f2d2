import { closeSync, constants, fchmodSync, openSync, unlinkSync, writeSync } from 'node:fs';
import type { DirectoryHandle } from '../../fs/directory-handle.js';
import { errnoOf } from '../../fs/path-error.js';

/** Options of {@link writeNewFile}. */
export interface WriteNewFileOptions {
  /** The file's whole content. */
  content: Buffer;
  /** The directory the file goes in: one no one else can see yet (a staged directory). */
  directory: DirectoryHandle;
  /** The file's name in `directory`. */
  name: string;
  /** Permission bits of the new file (not subject to the umask). */
  mode: number;
  /**
   * The process's umask (`processUmask`), when known: if it leaves `mode` whole, the file is
   * created with `mode` and needs no `fchmod`.
   */
  umask?: number | undefined;
}

/**
 * Creates the file `name` in `directory` with `O_EXCL | O_NOFOLLOW` (so nothing already there is
 * opened or replaced, a link included), gives it `mode` and writes `content` into it, in
 * synchronous calls. For a directory that is not visible yet, where no temporary file is needed:
 * on any failure the file is removed and the error rethrown. Returns the bytes written, or `undefined` when the name
 * is taken (the caller then replaces it by the usual rules).
 */
export function writeNewFile(options: WriteNewFileOptions): number | undefined {
  const { content, directory, name, mode, umask } = options;
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  // One syscall less per file when the umask keeps every bit. A stale umask, or a default ACL
  // of the directory, could only take bits away (the kernel applies them), never add any.
  const created = umask !== undefined && (mode & umask) === 0;
  let fd: number;
  try {
    fd = openSync(directory.child(name), flags, created ? mode : 0o600);
  } catch (error) {
    if (errnoOf(error) === 'EEXIST') return undefined;
    throw error;
  }
  let written = false;
  try {
    try {
      if (!created) fchmodSync(fd, mode);
      for (let offset = 0; offset < content.length; ) {
        offset += writeSync(fd, content, offset, content.length - offset);
      }
    } finally {
      closeSync(fd);
    }
    written = true;
    return content.length;
  } finally {
    if (!written) {
      try {
        unlinkSync(directory.child(name));
      } catch {
        // Already gone.
      }
    }
  }
}
