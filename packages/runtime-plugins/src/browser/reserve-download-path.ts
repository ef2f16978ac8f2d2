import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';

/** Longest file name kept, in UTF-8 bytes (file systems allow 255). */
const MAX_NAME_BYTES = 200;
/** Longest extension kept as one, in characters. */
const MAX_EXTENSION_CHARS = 16;

/**
 * Creates an empty file in `dir` for a download the page suggests naming `suggestedName`, and
 * answers its path. The name is made safe (its last path segment only, no control or reserved
 * characters, no leading dots, at most 200 bytes; `download` when nothing is left), so the file
 * is always directly inside `dir`. An existing file is never reused: `name (1).ext`,
 * `name (2).ext`, ... are tried, each created exclusively so two downloads cannot take one path.
 */
export async function reserveDownloadPath(dir: string, suggestedName: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const name = safeFileName(suggestedName);
  const extension = path.extname(name).length <= MAX_EXTENSION_CHARS ? path.extname(name) : '';
  const stem = name.slice(0, name.length - extension.length);
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const candidate = path.join(dir, attempt === 0 ? name : `${stem} (${attempt})${extension}`);
    try {
      await (await open(candidate, 'wx')).close();
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`${dir} already holds 10000 files named like ${name}`);
}

function safeFileName(suggested: string): string {
  const lastSegment = suggested.split(/[\\/]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
  let name = lastSegment.replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_').trim();
  name = name.replace(/^\.+/, '').trim();
  if (name === '') return 'download';
  const extension = path.extname(name).length <= MAX_EXTENSION_CHARS ? path.extname(name) : '';
  let stem = name.slice(0, name.length - extension.length);
  while (Buffer.byteLength(stem + extension) > MAX_NAME_BYTES)
    stem = [...stem].slice(0, -1).join('');
  return stem === '' ? `download${extension}` : stem + extension;
}
