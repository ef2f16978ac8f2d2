// Packs every public package of the workspace into .packs/; private ones (apps, examples, test
// packages) are never packed. pnpm turns `workspace:*` ranges into the versions being packed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const destination = path.join(root, '.packs');
mkdirSync(destination, { recursive: true });
const projects = JSON.parse(
  execFileSync('pnpm', ['ls', '-r', '--depth', '-1', '--json'], { cwd: root, encoding: 'utf8' }),
);
for (const { path: dir } of projects) {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (manifest.private) continue;
  execFileSync('pnpm', ['pack', '--pack-destination', destination], { cwd: dir, stdio: 'ignore' });
  console.log(`${manifest.name}@${manifest.version}`);
}
