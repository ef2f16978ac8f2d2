import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';

/** Options of {@link readHostSuite}. */
export interface ReadHostSuiteOptions {
  /**
   * The file-system root to read `etc/os-release` under.
   * @default '/'
   */
  rootDir?: string | undefined;
}

/** Parses `KEY=value` lines of an os-release file; values may be quoted. */
function parseOsRelease(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) fields.set(match[1]!, match[2]!.replace(/^(["'])(.*)\1$/, '$2'));
  }
  return fields;
}

/**
 * The Debian suite (codename, e.g. `bookworm`) of the host, from `/etc/os-release`
 * `VERSION_CODENAME`. Throws an `INVALID_ARGUMENT` {@link WorkspaceError} on a host that is
 * not Debian-based or names no codename: pass the suite explicitly there.
 */
export async function readHostSuite(options: ReadHostSuiteOptions = {}): Promise<string> {
  const file = path.join(options.rootDir ?? '/', 'etc/os-release');
  const text = await readFile(file, 'utf8').catch(() => '');
  const fields = parseOsRelease(text);
  const family = [fields.get('ID'), ...(fields.get('ID_LIKE') ?? '').split(/\s+/)];
  const suite = fields.get('VERSION_CODENAME');
  if (!family.includes('debian') || !suite) {
    throw new WorkspaceError({
      code: 'INVALID_ARGUMENT',
      message: `cannot tell the host's Debian suite from ${file}; pass the \`suite\` option (e.g. bookworm) and a \`mirror\``,
      details: { field: 'suite', file },
    });
  }
  return suite;
}
