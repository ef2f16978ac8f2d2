import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  AGENT_SERVER_ROUTES,
  MAX_WORKSPACE_ARCHIVE_EXCLUDES,
  workspaceArchiveManifestWireSchema,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTarGz } from '../archive/test-support/read-tar-gz.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t.dev', '-c', 'user.name=t', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

async function files(root: string, tree: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(tree)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
}

describe('GET /api/file/archive', () => {
  let t: TestServer;
  let count = 0;
  const fresh = () => path.join(t.dir, `case-${++count}`, 'project');

  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  function archive(params: Record<string, string | string[]>) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      for (const one of Array.isArray(value) ? value : [value]) query.append(key, one);
    }
    return fetch(`${t.url}${AGENT_SERVER_ROUTES.fileArchive}?${query}`);
  }

  async function tarGz(params: Record<string, string | string[]>) {
    const response = await archive({ format: 'tar.gz', ...params });
    expect(response.status, await response.clone().text()).toBe(200);
    const entries = await readTarGz(Buffer.from(await response.arrayBuffer()));
    return { response, entries, names: entries.map((entry) => entry.name.replace(/\/$/, '')) };
  }

  it('answers a gzip tarball under the directory name with its manifest last', async () => {
    const root = fresh();
    await files(root, { 'src/main.py': "print('hi')\n", 'README.md': '# project\n' });
    await mkdir(path.join(root, 'empty'));
    const { response, entries, names } = await tarGz({ path: root, exclude: '*.bin' });
    expect(response.headers.get('content-type')).toBe('application/gzip');
    expect(response.headers.get('content-disposition')).toBe(
      'attachment; filename="project.tar.gz"',
    );
    expect(names).toEqual([
      'project',
      'project/README.md',
      'project/empty',
      'project/src',
      'project/src/main.py',
      'project/archive_manifest.json',
    ]);
    expect(entries.find((entry) => entry.name === 'project/empty/')?.type).toBe('directory');
    const manifest = workspaceArchiveManifestWireSchema.parse(
      JSON.parse((entries.at(-1) as { body: Buffer }).body.toString('utf8')),
    );
    expect(manifest).toMatchObject({ format: 'tar.gz', source: 'project', file_count: 2 });
    expect(manifest.total_bytes).toBe(22);
    expect(manifest.excludes).toContain('node_modules/');
    expect(manifest.excludes.at(-1)).toBe('*.bin');
  });

  it('drops default excludes, .git included, unless use_default_excludes=false', async () => {
    const root = fresh();
    await files(root, {
      'src/main.py': 'x = 1\n',
      'a/node_modules/pkg/junk.js': '// big\n',
      '__pycache__/x.pyc': 'b',
      'lib/mod.pyc': 'b',
      build: 'a file named build stays',
    });
    git(root, 'init', '-q');
    git(root, 'remote', 'add', 'origin', 'https://x-access-token:ghs_SECRET@example.com/o/r');
    const trimmed = await tarGz({ path: root });
    expect(trimmed.names).toEqual([
      'project',
      'project/a',
      'project/build',
      'project/lib',
      'project/src',
      'project/src/main.py',
      'project/archive_manifest.json',
    ]);

    const full = await tarGz({ path: root, use_default_excludes: 'false' });
    expect(full.names).toContain('project/a/node_modules/pkg/junk.js');
    expect(full.names).toContain('project/.git/HEAD');
    expect(full.names).not.toContain('project/.git/config');
    expect(full.entries.some((entry) => entry.body.includes('ghs_SECRET'))).toBe(false);
    const manifest = JSON.parse((full.entries.at(-1) as { body: Buffer }).body.toString('utf8'));
    expect(manifest.excludes).toEqual([]);
  });

  it('never archives git credentials, reflogs or FETCH_HEAD, submodules included', async () => {
    const root = fresh();
    await files(root, {
      'README.md': '# p\n',
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/credentials': 'https://x:ghs_CRED@example.com\n',
      '.git/logs/HEAD': 'clone: from https://x:ghs_LOG@example.com\n',
      '.git/FETCH_HEAD': 'abc https://x:ghs_FETCH@example.com\n',
      '.git/modules/lib/config': 'url = https://x:ghs_SUB@example.com\n',
      '.git/modules/lib/HEAD': 'ref: refs/heads/main\n',
    });
    const { names, entries } = await tarGz({ path: root, use_default_excludes: 'false' });
    expect(names.filter((name) => name.includes('.git'))).toEqual([
      'project/.git',
      'project/.git/HEAD',
      'project/.git/modules',
      'project/.git/modules/lib',
      'project/.git/modules/lib/HEAD',
    ]);
    expect(entries.some((entry) => /ghs_/.test(entry.body.toString('utf8')))).toBe(false);
  });

  it('applies exclude globs the way OpenHands does', async () => {
    const root = fresh();
    await files(root, {
      'secrets/prod/token.txt': 'drop',
      'secrets/dev/token.txt': 'keep',
      'prod/keep.txt': 'keep',
      'a/secret.txt': 'drop',
      'a/b/secret.txt': 'keep',
      'data.bin': 'drop',
      'x/data.bin': 'drop',
    });
    const { names } = await tarGz({
      path: root,
      exclude: ['secrets/prod', '*/secret.txt', '*.bin'],
    });
    expect(names.filter((name) => !name.endsWith('archive_manifest.json'))).toEqual([
      'project',
      'project/a',
      'project/a/b',
      'project/a/b/secret.txt',
      'project/prod',
      'project/prod/keep.txt',
      'project/secrets',
      'project/secrets/dev',
      'project/secrets/dev/token.txt',
      'project/x',
    ]);
  });

  it("keeps the directory's own archive_manifest.json instead of the synthetic one", async () => {
    const root = fresh();
    await files(root, { 'archive_manifest.json': '{"mine":true}', 'other.txt': 'x' });
    const { entries } = await tarGz({ path: root });
    const manifests = entries.filter((entry) => entry.name === 'project/archive_manifest.json');
    expect(manifests.map((entry) => entry.body.toString('utf8'))).toEqual(['{"mine":true}']);
  });

  it('leaves symbolic links out and never follows them', async () => {
    const root = fresh();
    await files(root, { 'a.txt': 'a' });
    await files(path.join(root, '..', 'outside'), { 'secret.txt': 'outside' });
    await symlink('../outside', path.join(root, 'dir-link'));
    await symlink('a.txt', path.join(root, 'file-link'));
    const { names } = await tarGz({ path: root });
    expect(names).toEqual(['project', 'project/a.txt', 'project/archive_manifest.json']);
  });

  it('archives the one repository below a plain directory, and the directory when several', async () => {
    const base = fresh();
    await files(base, { 'group/repo/app.py': 'x = 1\n', 'loose.txt': 'x' });
    git(path.join(base, 'group/repo'), 'init', '-q');
    const one = await tarGz({ path: base });
    expect(one.response.headers.get('content-disposition')).toContain('repo.tar.gz');
    expect(one.names).toEqual(['repo', 'repo/app.py', 'repo/archive_manifest.json']);

    await files(base, { 'other/f.py': 'y\n' });
    git(path.join(base, 'other'), 'init', '-q');
    const several = await tarGz({ path: base });
    expect(several.names).toContain('project/loose.txt');
    expect(several.names).toContain('project/other/f.py');
  });

  async function patch(params: Record<string, string | string[]>) {
    const response = await archive(params);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/x-patch/);
    return { response, text };
  }

  it('git-delta: a new repository lists its files as additions, without a base commit', async () => {
    const root = fresh();
    await files(root, { 'new_file.py': 'x = 1\n', 'node_modules/pkg/big.js': '// big\n' });
    git(root, 'init', '-q');
    const { response, text } = await patch({ path: root });
    expect(response.headers.get('content-disposition')).toBe(
      'attachment; filename="project.patch"',
    );
    expect(text).toContain('diff --git a/new_file.py b/new_file.py');
    expect(text).toContain('new file mode');
    expect(text).not.toContain('node_modules');
    expect(response.headers.get('x-archive-base-commit')).toBeNull();
    const full = await patch({ path: root, use_default_excludes: 'false' });
    expect(full.text).toContain('node_modules/pkg/big.js');
  });

  it('git-delta: modifications, untracked files and deletions against base_ref, index untouched', async () => {
    const root = fresh();
    await files(root, { 'a.txt': 'original\n', 'gone.txt': 'bye\n', 'bin.dat': '\0\x01' });
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'init');
    const head = git(root, 'rev-parse', 'HEAD');
    await files(root, { 'a.txt': 'changed\n', 'b.txt': 'brand new\n', 'bin.dat': '\0\x02' });
    execFileSync('rm', [path.join(root, 'gone.txt')]);
    const indexBefore = git(root, 'ls-files', '--stage');
    const { response, text } = await patch({ path: root, base_ref: 'HEAD' });
    expect(response.headers.get('x-archive-base-commit')).toBe(head);
    expect(response.headers.get('x-archive-base-ref')).toBe('HEAD');
    expect(text).toContain('+changed');
    expect(text).toContain('diff --git a/b.txt b/b.txt');
    expect(text).toContain('deleted file mode');
    expect(text).toContain('GIT binary patch');
    expect(git(root, 'ls-files', '--stage')).toBe(indexBefore);
    // The patch applies: a clean checkout of the base plus the patch is the working tree.
    const replay = path.join(path.dirname(root), 'replay');
    git(path.dirname(root), 'clone', '-q', root, replay);
    execFileSync('git', ['apply', '--binary', '-'], { cwd: replay, input: text });
    expect(execFileSync('cat', ['a.txt', 'b.txt'], { cwd: replay, encoding: 'utf8' })).toBe(
      'changed\nbrand new\n',
    );
  });

  it('git-delta: scoped to a subdirectory; a directory exclude keeps a file of that name', async () => {
    const root = fresh();
    await files(root, { 'outside.txt': 'base\n', 'sub/inside.txt': 'base\n' });
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'init');
    await files(root, {
      'outside.txt': 'changed\n',
      'sub/inside.txt': 'changed\n',
      'sub/build': 'authored marker\n',
      'sub/x/build/out.o': 'compiled\n',
    });
    const { text } = await patch({ path: path.join(root, 'sub'), base_ref: 'HEAD' });
    expect(text).toContain('sub/inside.txt');
    expect(text).not.toContain('outside.txt');
    expect(text).toContain('diff --git a/sub/build b/sub/build');
    expect(text).not.toContain('out.o');
  });

  it('git-delta: 400 for a directory without a repository and for an unknown base_ref', async () => {
    const root = fresh();
    await files(root, { 'src/a.py': 'x\n' });
    const plain = await archive({ path: root });
    expect(plain.status).toBe(400);
    expect(JSON.stringify(await plain.json())).toMatch(/git repositor/i);
    git(root, 'init', '-q');
    git(root, 'commit', '-q', '--allow-empty', '-m', 'init');
    const unknown = await archive({ path: root, base_ref: 'does-not-exist-ref' });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(await unknown.json())).toMatch(/base_ref/);
  });

  it('names the repository in X-Archive-Repo-* headers, credentials redacted', async () => {
    const root = fresh();
    await files(root, { 'a.txt': 'x\n' });
    git(root, 'init', '-q');
    git(
      root,
      'remote',
      'add',
      'origin',
      'HTTPS://user:ghp_secret@example.com/o/r.git?access_token=T0K&depth=1',
    );
    git(root, 'commit', '-q', '--allow-empty', '-m', 'init');
    git(root, 'checkout', '-q', '-b', 'café-branch');
    const head = git(root, 'rev-parse', 'HEAD');
    const { response } = await tarGz({ path: root });
    const remote = response.headers.get('x-archive-repo-remote') ?? '';
    expect(decodeURIComponent(remote)).toBe(
      'HTTPS://****@example.com/o/r.git?access_token=%3Credacted%3E&depth=1',
    );
    expect(response.headers.get('x-archive-branch')).toBe(encodeURIComponent('café-branch'));
    expect(response.headers.get('x-archive-head-commit')).toBe(head);
    expect(decodeURIComponent(response.headers.get('x-archive-repo-root') ?? '')).toBe(root);

    git(root, 'checkout', '-q', head);
    const detached = await patch({ path: root });
    expect(detached.response.headers.get('x-archive-branch')).toBe('DETACHED');
    expect(detached.response.headers.get('x-archive-base-commit')).toBe(head);

    const plain = fresh();
    await files(plain, { 'a.txt': 'x' });
    const none = await tarGz({ path: plain });
    for (const name of ['repo-remote', 'branch', 'head-commit', 'repo-root']) {
      expect(none.response.headers.get(`x-archive-${name}`)).toBeNull();
    }
  });

  it('answers 400, 404 and 422 like OpenHands, naming the field', async () => {
    const root = fresh();
    await files(root, { 'a.txt': 'x' });
    const relative = await archive({ path: 'relative/dir' });
    expect(relative.status).toBe(400);
    expect(JSON.stringify(await relative.json())).toMatch(/absolute/i);
    expect((await archive({ path: path.join(root, 'nope') })).status).toBe(404);
    const file = await archive({ path: path.join(root, 'a.txt'), format: 'tar.gz' });
    expect(file.status).toBe(400);
    expect(JSON.stringify(await file.json())).toMatch(/not a directory/i);
    for (const baseRef of ['-x', '--output=/tmp/x', '-o']) {
      const dashed = await archive({ path: root, format: 'git-delta', base_ref: baseRef });
      expect(dashed.status).toBe(400);
      expect(JSON.stringify(await dashed.json())).toMatch(/base_ref/);
    }
    const format = await archive({ path: root, format: 'zip' });
    expect(format.status).toBe(422);
    expect(JSON.stringify(await format.json())).toMatch(/format/);
    const many = Array.from({ length: MAX_WORKSPACE_ARCHIVE_EXCLUDES + 1 }, (_, i) => `g${i}`);
    const tooMany = await archive({ path: root, format: 'tar.gz', exclude: many });
    expect(tooMany.status).toBe(422);
    expect(JSON.stringify(await tooMany.json())).toMatch(/exclude/);
    const long = await archive({ path: root, format: 'tar.gz', exclude: 'a'.repeat(257) });
    expect(long.status).toBe(422);
    expect(JSON.stringify(await long.json())).toMatch(/exclude/);
  });
});
