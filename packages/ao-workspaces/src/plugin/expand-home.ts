import { homedir } from 'node:os';
import path from 'node:path';

/** Expands a leading `~` or `~/` to the home directory, as ao-core does for its paths. */
export function expandHome(value: string): string {
  if (value === '~') return homedir();
  if (value.startsWith('~/')) return path.join(homedir(), value.slice(2));
  return value;
}
