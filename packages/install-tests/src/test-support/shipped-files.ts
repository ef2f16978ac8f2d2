import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** What an installed package folder holds that it should not, or lacks that it should. */
export interface ShippedFilesReport {
  /** Every file, relative to the package folder. */
  files: string[];
  /** `<map> -> <source>` for each sourcemap source that is not in the package. */
  missingSources: string[];
}

/** Lists an installed package's files and checks that its sourcemaps point at files it ships. */
export async function inspectShippedFiles(packageDir: string): Promise<ShippedFilesReport> {
  const entries = await readdir(packageDir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(packageDir, path.join(entry.parentPath, entry.name)))
    .sort();
  const shipped = new Set(files);
  const missingSources: string[] = [];
  for (const map of files.filter((file) => file.endsWith('.map'))) {
    const { sources, sourceRoot = '' } = JSON.parse(
      await readFile(path.join(packageDir, map), 'utf8'),
    ) as { sources: string[]; sourceRoot?: string };
    for (const source of sources) {
      const file = path.normalize(path.join(path.dirname(map), sourceRoot, source));
      if (!shipped.has(file)) missingSources.push(`${map} -> ${source}`);
    }
  }
  return { files, missingSources };
}
