import type { Writable } from 'node:stream';
import { invalidArgument } from '../errors/invalid-argument.js';

/** Writes `data` to a piped stdin, rejecting with `INVALID_ARGUMENT` when it cannot be written. */
export function writeToStdin(
  stdin: Writable | null,
  piped: boolean,
  data: string | Uint8Array,
): Promise<void> {
  if (!stdin || !piped) {
    return Promise.reject(invalidArgument('stdin', "was not piped (start with stdin: 'pipe')"));
  }
  if (stdin.writableEnded || stdin.destroyed) {
    return Promise.reject(invalidArgument('stdin', 'is closed'));
  }
  return new Promise((resolve, reject) => {
    stdin.write(data, (error) => {
      if (error) reject(invalidArgument('stdin', `is closed (${error.message})`));
      else resolve();
    });
  });
}
