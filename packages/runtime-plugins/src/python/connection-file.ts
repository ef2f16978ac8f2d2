import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { invalidArgument } from '@agent-workspace/core';

/** The kernel's channels; each is a ZeroMQ endpoint. */
export type KernelChannel = 'shell' | 'control' | 'iopub' | 'stdin' | 'hb';

/** Where a kernel listens and the key its messages are signed with. */
export interface KernelConnection {
  /** The connection file given to the kernel with `-f`. */
  file: string;
  key: string;
  /** `ipc://` endpoint of each channel. */
  endpoints: Readonly<Record<KernelChannel, string>>;
}

/**
 * Longest path of a Unix socket (`sun_path` is 108 bytes with its terminating NUL); a kernel
 * directory deeper than this cannot hold its socket files.
 */
export const MAX_IPC_PATH_BYTES = 107;

// The `ipc` transport: the kernel binds `<ip>-<port>`, so "ports" only number the socket files.
const PORTS: Readonly<Record<KernelChannel, number>> = {
  shell: 1,
  iopub: 2,
  stdin: 3,
  control: 4,
  hb: 5,
};

/**
 * Writes a connection file (mode 0600, a random key, the `ipc` transport) into `dir`, a private
 * directory of one kernel, whose socket files will sit beside it. The socket paths are checked
 * against {@link MAX_IPC_PATH_BYTES} (an `INVALID_ARGUMENT` naming `dir`).
 */
export async function writeConnectionFile(dir: string): Promise<KernelConnection> {
  const ip = path.join(dir, 'k');
  const longest = `${ip}-${Math.max(...Object.values(PORTS))}`;
  if (Buffer.byteLength(longest) > MAX_IPC_PATH_BYTES) {
    throw invalidArgument('dir', `is too deep for Unix socket paths: ${dir}`);
  }
  const key = randomBytes(32).toString('hex');
  const file = path.join(dir, 'connection.json');
  const ports = Object.fromEntries(
    Object.entries(PORTS).map(([channel, port]) => [`${channel}_port`, port]),
  );
  const info = { transport: 'ipc', ip, key, signature_scheme: 'hmac-sha256', ...ports };
  await writeFile(file, JSON.stringify(info), { mode: 0o600, flag: 'wx' });
  const endpoints = Object.fromEntries(
    Object.entries(PORTS).map(([channel, port]) => [channel, `ipc://${ip}-${port}`]),
  ) as Record<KernelChannel, string>;
  return { file, key, endpoints };
}
