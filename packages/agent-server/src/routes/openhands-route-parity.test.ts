import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

const KEY = 'parity-key';
const README = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'README.md');
const SECTION = '### OpenHands route parity';
const STATUSES = ['served', 'served with differences', 'not served'] as const;
const ROW = /^\| (GET|POST|PUT|PATCH|DELETE|WS) \| `(\/[^`]*)` \| ([a-z ]+) \|(?: (.+))? \|$/;
/** What our not-found handler answers for a route that does not exist. */
const GENERIC_NOT_FOUND = { detail: 'Not Found' };

/** One row of the README's parity table. */
interface ParityRow {
  method: string;
  path: string;
  status: (typeof STATUSES)[number];
}

/** An answer of the server: its status and parsed JSON body (`undefined` when not JSON). */
interface Answer {
  status: number;
  body: unknown;
}

/** Reads the parity table, failing on any line of it that is not a well-formed row. */
function readParityTable(): ParityRow[] {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(`\n${SECTION}\n`);
  expect(start, `README has a "${SECTION}" section`).toBeGreaterThan(0);
  const section = text.slice(start + SECTION.length + 2).split(/\n#{2,3} /)[0] ?? '';
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  expect(lines.slice(0, 2)).toEqual([
    '| method | OpenHands path | status | notes |',
    '|---|---|---|---|',
  ]);
  return lines.slice(2).map((line) => {
    const match = ROW.exec(line);
    expect(match, `a parity row: ${line}`).not.toBeNull();
    const [, method = '', routePath = '', status = ''] = match ?? [];
    expect(STATUSES, `status of ${line}`).toContain(status);
    return { method, path: routePath, status: status as ParityRow['status'] };
  });
}

/** The row's path with plausible values in its `{params}`, and the query its route needs. */
function target(row: ParityRow, dir: string): string {
  const filled = row.path
    .replace('{conversation_id}', '00000000-0000-4000-8000-000000000000')
    .replace('{event_id}', '0'.repeat(32))
    .replace('{sha}', 'abcd1234')
    .replace(/\{[a-z_]+\}/g, 'x');
  const needsPath = /^\/api\/(file|git)\//.test(filled) && !filled.includes('download-trajectory');
  return needsPath ? `${filled}?path=${encodeURIComponent(dir)}` : filled;
}

/** Sends the row's request (a JSON `{}` body on writes), with or without the session key. */
async function probe(server: TestServer, row: ParityRow, withKey: boolean): Promise<Answer> {
  const headers: Record<string, string> = withKey ? { [SESSION_API_KEY_HEADER]: KEY } : {};
  const write = row.method !== 'GET' && row.method !== 'DELETE';
  if (write) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${target(row, server.dir)}`, {
    method: row.method,
    headers,
    ...(write ? { body: '{}' } : {}),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body };
}

/** Opens a websocket handshake on the row's path: 101 when the route upgrades, else the answer. */
function probeSocket(server: TestServer, row: ParityRow): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${server.url}${target(row, server.dir)}`, {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Key': Buffer.from('parity-probe-key').toString('base64'),
        'Sec-WebSocket-Version': '13',
      },
    });
    request.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 0, body: undefined });
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode ?? 0, body });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

function isGenericNotFound(answer: Answer): boolean {
  return answer.status === 404 && JSON.stringify(answer.body) === JSON.stringify(GENERIC_NOT_FOUND);
}

describe('OpenHands route parity table (README)', () => {
  let server: TestServer;
  const rows = readParityTable();

  beforeAll(async () => {
    server = await startTestServer({ sessionApiKeys: [KEY] });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lists each method and path once, and every status', () => {
    const keys = rows.map((row) => `${row.method} ${row.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(rows.map((row) => row.status))).toEqual(new Set(STATUSES));
  });

  it.each(rows.filter((row) => row.status !== 'not served'))(
    '$method $path ($status) is served',
    async (row) => {
      const answer =
        row.method === 'WS' ? await probeSocket(server, row) : await probe(server, row, true);
      const label = `${row.method} ${row.path} answered ${answer.status} ${JSON.stringify(answer.body)}`;
      expect(isGenericNotFound(answer), label).toBe(false);
      expect([401, 405], label).not.toContain(answer.status);
      expect(answer.status, label).toBeLessThan(500);
      if (row.method !== 'WS' && row.path.startsWith('/api/')) {
        const anonymous = await probe(server, row, false);
        expect(anonymous, `${row.method} ${row.path} without the key`).toEqual({
          status: 401,
          body: { detail: 'Unauthorized' },
        });
      }
    },
  );

  it.each(rows.filter((row) => row.status === 'not served'))(
    '$method $path is not served',
    async (row) => {
      const answer = await probe(server, row, true);
      expect(answer, `${row.method} ${row.path} with the key`).toEqual({
        status: 404,
        body: GENERIC_NOT_FOUND,
      });
      const anonymous = await probe(server, row, false);
      const expected = row.path.startsWith('/api/')
        ? { status: 401, body: { detail: 'Unauthorized' } }
        : { status: 404, body: GENERIC_NOT_FOUND };
      expect(anonymous, `${row.method} ${row.path} without the key`).toEqual(expected);
    },
  );
});
