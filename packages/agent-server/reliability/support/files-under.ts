import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Listings tried before a file that keeps vanishing fails the read. */
const PASSES = 20;

/**
 * Every file under `dir`, read as text. The server may still be saving a state (a temporary
 * file renamed over the state file): a file gone between the listing and the reading is read
 * under its new name by listing again.
 */
export function filesUnder(dir: string): string[] {
  for (let pass = 1; ; pass += 1) {
    try {
      return readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .map((name) => path.join(dir, name))
        .filter((file) => statSync(file).isFile())
        .map((file) => readFileSync(file, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || pass === PASSES) throw error;
    }
  }
}
