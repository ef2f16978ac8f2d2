import { realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORE_PACKAGE_DIR, modulesLoadedBy } from '../test-support/modules-loaded-by.js';

const PAYLOAD = 'the bytes of one file\n';

/** Downloads `/remote/source.txt` to argv[1], then uploads argv[2] to `/remote/upload.txt`. */
const script = `
  const { RemoteWorkspace } = await import('@agent-workspace/core');
  const [host, downloadTo, uploadFrom] = process.argv.slice(1);
  const workspace = new RemoteWorkspace({ host, workingDir: '/remote', apiKey: 'test-key-0123456789' });
  const download = await workspace.fileDownload('/remote/source.txt', downloadTo);
  const upload = await workspace.fileUpload(uploadFrom, '/remote/upload.txt');
  await workspace.close();
  console.log('results ' + JSON.stringify([download.success, upload.success]));
`;

/**
 * A real HTTP server on loopback standing in for an agent-server (which this package cannot
 * start): it serves the file routes as ours does and answers anything else 404.
 */
let server: Server;
let host: string;
let uploaded: string | undefined;
let local: string;

beforeAll(async () => {
  local = await mkdtemp(path.join(tmpdir(), 'remote-file-transfer-cost-'));
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://double');
    if (request.method === 'GET' && url.pathname === '/api/file/download') {
      response.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': Buffer.byteLength(PAYLOAD),
      });
      response.end(PAYLOAD);
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && url.pathname === '/api/file/upload') {
        uploaded = Buffer.concat(chunks).toString();
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: true }));
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ detail: 'Not Found' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(local, { recursive: true, force: true });
});

/** One download and one upload in a fresh `node`: what it loaded and its `results` line. */
async function modulesLoadedByOneFileTransfer(): Promise<{ urls: string[]; results: string[] }> {
  const downloadTo = path.join(local, 'downloaded.txt');
  const uploadFrom = path.join(local, 'to-upload.txt');
  await writeFile(uploadFrom, PAYLOAD);
  const { urls, lines } = await modulesLoadedBy(script, [host, downloadTo, uploadFrom]);
  expect(await readFile(downloadTo, 'utf8')).toBe(PAYLOAD);
  return { urls, results: lines };
}

/** What `url` belongs to when it is a module a file transfer must not load. */
function heavyModuleOf(url: string): string | undefined {
  // The protocol's main entry builds every wire schema; its zod-free part is `/constants`.
  if (/\/protocol\/dist\/index\.js$/.test(url)) return '@agent-workspace/protocol (schemas)';
  return /\/node_modules\/(zod|tar-stream)\//.exec(url)?.[1];
}

describe('a file download and upload through the built RemoteWorkspace', () => {
  it('loads no zod, protocol schemas or tar-stream', async () => {
    const { urls, results } = await modulesLoadedByOneFileTransfer();
    expect(results).toEqual(['results [true,true]']);
    expect(uploaded).toContain(PAYLOAD);
    // The recorder saw the transport load, so an empty list below means something.
    const entry = pathToFileURL(realpathSync(path.join(CORE_PACKAGE_DIR, 'dist', 'index.js'))).href;
    expect(urls).toContain(entry);
    expect(urls.some((url) => /\/dist\/remote-transport-[\w-]+\.js$/.test(url))).toBe(true);
    expect([...new Set(urls.map(heavyModuleOf).filter(Boolean))]).toEqual([]);
  });
});
