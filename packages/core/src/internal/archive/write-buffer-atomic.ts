import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import type { DirectoryHandle } from '../../fs/directory-handle.js';
import { TEMPORARY_FILE_SUFFIX } from '../../fs/write-stream-atomic.js';

/** Options of {@link writeBufferAtomic}. */
export interface WriteBufferAtomicOptions {
  /** The file's whole content. */
  content: Buffer;
  /** The directory the file goes in. */
  directory: DirectoryHandle;
  /** The file's name in `directory`. */
  name: string;
  /** Permission bits of the new file (not subject to the umask). */
  mode: number;
  /** Told the temporary file's name when it is created and when it is gone. */
  onTemporaryFile?: ((event: 'created' | 'gone', name: string) => void) | undefined;
}

/**
 * `writeStreamAtomic` for content already in memory (the small files of an archive), in
 * synchronous calls with no stream around them: a private temporary file in `directory` (named
 * so the start-up sweep knows it), given `mode`, written, then renamed over `name`. On any
 * failure the temporary file is removed and the error rethrown.
 */
export function writeBufferAtomic(options: WriteBufferAtomicOptions): number {
  const { content, directory, name, mode, onTemporaryFile } = options;
  const temporary = `.archive.${nextSuffix()}${TEMPORARY_FILE_SUFFIX}`;
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const fd = openSync(directory.child(temporary), flags, 0o600);
  onTemporaryFile?.('created', temporary);
  let renamed = false;
  try {
    try {
      fchmodSync(fd, mode);
      for (let offset = 0; offset < content.length; ) {
        offset += writeSync(fd, content, offset, content.length - offset);
      }
    } finally {
      closeSync(fd);
    }
    renameSync(directory.child(temporary), directory.child(name));
    renamed = true;
    return content.length;
  } finally {
    if (!renamed) {
      try {
        unlinkSync(directory.child(temporary));
      } catch {
        // Already gone.
      }
    }
    onTemporaryFile?.('gone', temporary);
  }
}

/** Random start of this process's temporary-name counter (48 bits, 12 hex digits). */
let suffixCounter = randomBytes(6).readUIntBE(0, 6);

/** The next 12-hex-digit suffix: unique within the process, `O_EXCL` guards the rest. */
function nextSuffix(): string {
  suffixCounter = (suffixCounter + 1) % 2 ** 48;
  return suffixCounter.toString(16).padStart(12, '0');
}
