import { mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  AGENT_SERVER_ROUTES,
  FILE_BROWSER_ROUTES,
  REDACTED_SECRET_VALUE,
  trajectoryPath,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readZip } from '../test-support/read-zip.js';
import {
  type ConfinedTestServer,
  startConfinedTestServer,
} from '../test-support/start-confined-test-server.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

const R = FILE_BROWSER_ROUTES;

// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely
async function json(response: Response | Promise<Response>): Promise<any> {
  return (await response).json();
}

function get(t: TestServer, route: string, query: Record<string, string> = {}) {
  return fetch(`${t.url}${route}?${new URLSearchParams(query)}`);
}

function createDirectory(t: TestServer, target: string) {
  return fetch(`${t.url}${R.createDirectory}?${new URLSearchParams({ path: target })}`, {
    method: 'POST',
  });
}

describe('file-browser routes', () => {
  let t: TestServer;
  let confined: ConfinedTestServer;
  beforeAll(async () => {
    t = await startTestServer();
    confined = await startConfinedTestServer();
  });
  afterAll(async () => {
    await t.close();
    await confined.close();
  });

  describe('POST /api/file/create_directory', () => {
    it('creates the directory with its missing parents, idempotently', async () => {
      const target = path.join(t.dir, 'parent/child/grandchild');
      const first = await createDirectory(t, target);
      expect(first.status).toBe(200);
      expect(await json(first)).toEqual({ success: true });
      expect((await stat(target)).isDirectory()).toBe(true);
      await writeFile(path.join(target, 'keep.txt'), 'untouched');
      expect((await createDirectory(t, target)).status).toBe(200);
      expect(await readFile(path.join(target, 'keep.txt'), 'utf8')).toBe('untouched');
    });

    it('answers 400 for a relative path and 422 without one', async () => {
      const relative = await createDirectory(t, 'relative/dir');
      expect(relative.status).toBe(400);
      expect(await json(relative)).toEqual({ detail: 'Path must be absolute' });
      const missing = await fetch(`${t.url}${R.createDirectory}`, { method: 'POST' });
      expect(missing.status).toBe(422);
    });

    it('answers 400 over a file or under one, leaving the file alone', async () => {
      const file = path.join(t.dir, 'a_file.txt');
      await writeFile(file, 'do not clobber me');
      for (const target of [file, path.join(file, 'below')]) {
        const response = await createDirectory(t, target);
        expect(response.status).toBe(400);
        expect(await json(response)).toEqual({ detail: 'Path exists and is not a directory' });
      }
      expect(await readFile(file, 'utf8')).toBe('do not clobber me');
    });

    it('refuses, when confined, a path outside and one through a link leading out', async () => {
      for (const target of [
        path.join(confined.outside, 'made'),
        path.join(confined.dir, 'escape/made'),
      ]) {
        const response = await createDirectory(confined, target);
        expect(response.status).toBe(403);
        expect((await json(response)).detail).toContain('outside the working directory');
      }
      await expect(stat(path.join(confined.outside, 'made'))).rejects.toThrow(/ENOENT/);
    });
  });

  describe('GET /api/file/search_subdirs', () => {
    let base: string;
    beforeAll(async () => {
      base = path.join(t.dir, 'subdirs');
      for (const name of ['alpha', 'Bravo', 'charlie', 'Delta', 'echo', '.hidden']) {
        await mkdir(path.join(base, name), { recursive: true });
      }
      await writeFile(path.join(base, 'README.md'), 'hi');
      await symlink(path.join(base, 'alpha'), path.join(base, 'link-to-alpha'));
    });

    it('lists directories only (no files, links or hidden ones) with absolute paths', async () => {
      const response = await get(t, R.searchSubdirs, { path: `${base}//` });
      expect(response.status).toBe(200);
      const body = await json(response);
      expect(body.items.map((entry: { name: string }) => entry.name)).toEqual([
        'alpha',
        'Bravo',
        'charlie',
        'Delta',
        'echo',
      ]);
      expect(body.items[0]).toEqual({ name: 'alpha', path: path.join(base, 'alpha') });
      expect(body.next_page_id).toBeNull();
    });

    it('pages with limit and page_id, and lists hidden ones on request', async () => {
      const pages: string[][] = [];
      let pageId: string | null = null;
      do {
        const query: Record<string, string> = { path: base, limit: '2', include_hidden: 'true' };
        if (pageId !== null) query.page_id = pageId;
        const body = await await json(get(t, R.searchSubdirs, query));
        pages.push(body.items.map((entry: { name: string }) => entry.name));
        pageId = body.next_page_id;
      } while (pageId !== null);
      expect(pages).toEqual([
        ['.hidden', 'alpha'],
        ['Bravo', 'charlie'],
        ['Delta', 'echo'],
      ]);
    });

    it('resumes after a page_id whose directory is gone', async () => {
      const body = await await json(get(t, R.searchSubdirs, { path: base, page_id: 'bz' }));
      expect(body.items.map((entry: { name: string }) => entry.name)).toEqual([
        'charlie',
        'Delta',
        'echo',
      ]);
    });

    it('answers 400 relative, 404 missing, 400 a file, 422 a bad limit', async () => {
      const relative = await get(t, R.searchSubdirs, { path: 'relative/path' });
      expect([relative.status, await json(relative)]).toEqual([
        400,
        { detail: 'Path must be absolute' },
      ]);
      const missing = await get(t, R.searchSubdirs, { path: path.join(base, 'nope') });
      expect([missing.status, await json(missing)]).toEqual([
        404,
        { detail: 'Directory not found' },
      ]);
      const file = await get(t, R.searchSubdirs, { path: path.join(base, 'README.md') });
      expect([file.status, await json(file)]).toEqual([400, { detail: 'Path is not a directory' }]);
      for (const limit of ['0', '101', 'many']) {
        const response = await get(t, R.searchSubdirs, { path: base, limit });
        expect(response.status).toBe(422);
        expect(JSON.stringify(await json(response))).toContain('limit');
      }
    });

    it('refuses, when confined, paths outside and links leading out', async () => {
      await mkdir(path.join(confined.outside, 'secret-dir'), { recursive: true });
      for (const target of [confined.outside, path.join(confined.dir, 'escape')]) {
        const response = await get(confined, R.searchSubdirs, { path: target });
        expect(response.status).toBe(403);
        expect(JSON.stringify(await json(response))).not.toContain('secret-dir');
      }
    });
  });

  describe('GET /api/file/home', () => {
    it('answers the home directory, its directories as favorites and the root', async () => {
      const home = await realpath(await mkdtemp(path.join(os.tmpdir(), 'file-browser-home-')));
      const saved = process.env.HOME;
      process.env.HOME = home;
      try {
        await mkdir(path.join(home, 'projects'));
        await mkdir(path.join(home, 'Documents'));
        await mkdir(path.join(home, '.cache'));
        await writeFile(path.join(home, 'readme.txt'), 'ignored');
        const body = await await json(get(t, R.home));
        expect(body).toEqual({
          home,
          favorites: [
            { label: 'Documents', path: path.join(home, 'Documents') },
            { label: 'projects', path: path.join(home, 'projects') },
          ],
          locations: [{ label: '/', path: '/' }],
        });
        const hidden = await await json(get(t, R.home, { include_hidden: 'true' }));
        expect(hidden.favorites.map((entry: { label: string }) => entry.label)).toEqual([
          '.cache',
          'Documents',
          'projects',
        ]);
      } finally {
        process.env.HOME = saved;
        await rm(home, { recursive: true, force: true });
      }
    });

    it('answers the working directory as home and location on a confined server', async () => {
      await mkdir(path.join(confined.dir, 'inside'), { recursive: true });
      const body = await await json(get(confined, R.home));
      expect(body.home).toBe(confined.dir);
      expect(body.locations).toEqual([{ label: confined.dir, path: confined.dir }]);
      expect(body.favorites).toContainEqual({
        label: 'inside',
        path: path.join(confined.dir, 'inside'),
      });
    });
  });
});

describe('GET /api/file/download-trajectory/{conversation_id}', () => {
  const sessionKey = 'session-key-0123456789abcdef';
  let t: TestServer;
  let stateDir: string;
  beforeAll(async () => {
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'trajectory-state-'));
    t = await startTestServer({ stateDir, sessionApiKeys: [sessionKey] });
  });
  afterAll(async () => {
    await t.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  const headers = { 'x-session-api-key': sessionKey };

  it('zips the conversation under its hex id with every key redacted', async () => {
    const llmKey = 'sk-plaintext-main-0123456789';
    const workspaceKey = 'ws-secret-abcdef987654';
    const created = await fetch(`${t.url}${AGENT_SERVER_ROUTES.conversations}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspace: {
          kind: 'LocalWorkspace',
          working_dir: t.dir,
          api_key: workspaceKey,
          note: `key ${sessionKey}`,
        },
        agent: {
          kind: 'Agent',
          llm: { kind: 'ScriptedLLM', script: [], api_key: llmKey },
          tools: [],
        },
        tags: { Session_Api_Key: workspaceKey },
      }),
    });
    expect(created.status).toBe(201);
    const id = (await json(created)).id as string;
    const hex = id.replaceAll('-', '');
    const conversationDir = path.join(stateDir, 'conversations', id);
    // What the redaction must catch wherever it appears: a JSON file and a JSONL line.
    await writeFile(
      path.join(conversationDir, 'extra.jsonl'),
      `${JSON.stringify({ llm: { aws_secret_access_key: 'aws-secret-1' } })}\nnot json ${llmKey}\n`,
    );

    for (const spelling of [id, hex, id.toUpperCase()]) {
      const response = await fetch(`${t.url}${trajectoryPath(spelling)}`, { headers });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${hex}.zip"`);
      const zip = await readZip(Buffer.from(await response.arrayBuffer()));
      expect([...zip.keys()]).toEqual(
        expect.arrayContaining([
          `${hex}/`,
          `${hex}/meta.json`,
          `${hex}/extra.jsonl`,
          `${hex}/conversation/`,
          `${hex}/conversation/state.json`,
        ]),
      );
      const all = Buffer.concat([...zip.values()]).toString('utf8');
      for (const secret of [llmKey, workspaceKey, sessionKey, 'aws-secret-1']) {
        expect(all).not.toContain(secret);
      }
      const meta = JSON.parse(zip.get(`${hex}/meta.json`)!.toString('utf8'));
      expect(meta.workspace).toMatchObject({
        working_dir: t.dir,
        api_key: REDACTED_SECRET_VALUE,
        note: REDACTED_SECRET_VALUE,
      });
      expect(meta.tags.Session_Api_Key).toBe(REDACTED_SECRET_VALUE);
      expect(zip.get(`${hex}/extra.jsonl`)!.toString('utf8')).toBe(
        `${JSON.stringify({ llm: { aws_secret_access_key: REDACTED_SECRET_VALUE } })}\n`,
      );
    }
  });

  it('answers 404 for an unknown conversation and 422 for a malformed id', async () => {
    const unknown = await fetch(`${t.url}${trajectoryPath(crypto.randomUUID())}`, { headers });
    expect([unknown.status, await json(unknown)]).toEqual([
      404,
      { detail: 'Conversation not found' },
    ]);
    const malformed = await fetch(`${t.url}${trajectoryPath('not-a-uuid')}`, { headers });
    expect(malformed.status).toBe(422);
    expect(JSON.stringify(await json(malformed))).toContain('conversation_id');
  });

  it('asks for the session key', async () => {
    const response = await fetch(`${t.url}${trajectoryPath(crypto.randomUUID())}`);
    expect(response.status).toBe(401);
  });
});
