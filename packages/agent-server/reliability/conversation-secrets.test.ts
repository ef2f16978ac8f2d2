import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedAgent, startRequest } from '../src/conversations/test-support/conversation-api.js';
import { Figures } from './support/figures.js';
import { filesUnder } from './support/files-under.js';
import { type Answer, call } from './support/http.js';
import { AUTH, type ServerProcess, waitFor } from './support/server-process.js';
import {
  createStateScratch,
  finishScenario,
  type StateScratch,
  startStateServer,
} from './support/state-dir-server.js';

const JSON_HEADERS = { ...AUTH, 'content-type': 'application/json' };
/** The documented limits (`@agent-workspace/protocol`), spelled out so a change is noticed. */
const MAX_SECRETS = 100;
const MAX_VALUE_BYTES = 16 * 1024;
const MAX_NAME_CHARS = 128;
/** Every value sent in this file starts with this, so no answer, log or file may hold it. */
const MARK = 'rel-secret-';

/**
 * Conversation secrets against the built server: sizes and counts past the limits, reserved
 * names, malformed sources, unknown ids, and lookups that cannot be had. Every refusal must be
 * the documented 4xx without the value in it; a 5xx, a wrong success or an echoed value is an
 * escape. No log line or persisted file may hold a value.
 */
describe('conversation secrets refusals', () => {
  let scratch: StateScratch;
  let stateDir: string;
  let server: ServerProcess;
  let lookups: Server;
  let lookupBase: string;
  let id: string;
  const figures = new Figures('conversation secrets');

  const send = (route: string, body: unknown, raw?: string): Promise<Answer> =>
    call(`${server.url}/api/conversations${route}`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: raw ?? JSON.stringify(body),
      timeoutMs: 60_000,
    });
  const post = (conversation: string, body: unknown, raw?: string) =>
    send(`/${conversation}/secrets`, body, raw);

  /** Sends each case and counts it; the expected status is a rejection, anything else an escape. */
  async function expectStatuses(
    cases: [label: string, conversation: string, body: unknown, status: number][],
  ): Promise<void> {
    const wrong: string[] = [];
    for (const [label, conversation, body, status] of cases) {
      const answer = await post(conversation, body);
      figures.tried += 1;
      const echoed = answer.text.includes(MARK);
      if (answer.status === status && !echoed) figures.rejected += 1;
      else {
        figures.escapes += 1;
        wrong.push(
          `${label}: ${answer.status}${echoed ? ' (value echoed)' : ''} ${answer.text.slice(0, 300)}`,
        );
      }
    }
    expect(wrong).toEqual([]);
  }

  beforeAll(async () => {
    lookups = createServer((request, response) => {
      if (request.url === '/huge') {
        // Far past the limit: the server must stop reading.
        response.writeHead(200);
        const chunk = 'h'.repeat(64 * 1024);
        let sent = 0;
        const write = (): void => {
          while (sent < 256 && response.write(chunk)) sent += 1;
          if (sent >= 256) response.end();
          else response.once('drain', write);
        };
        write();
      } else if (request.url === '/hang') {
        // Never answers.
      } else response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => lookups.listen(0, '127.0.0.1', resolve));
    lookupBase = `http://127.0.0.1:${(lookups.address() as AddressInfo).port}`;
    scratch = await createStateScratch('conversation-secrets');
    stateDir = scratch.stateDir;
    server = await startStateServer(scratch);
    const started = await send('', {
      ...startRequest(scratch.workingDir, scriptedAgent('true')),
      initial_message: null,
    });
    id = (started.json as { id: string }).id;
  });
  afterAll(async () => {
    await finishScenario(figures, server, scratch);
    lookups?.closeAllConnections();
    await new Promise((resolve) => lookups?.close(resolve));
  });

  it('answers unknown and malformed conversation ids (404, 422)', async () => {
    await expectStatuses([
      ['unknown id', crypto.randomUUID(), { secrets: { A_TOKEN: `${MARK}a` } }, 404],
      ['malformed id', 'not-a-uuid', { secrets: { A_TOKEN: `${MARK}a` } }, 422],
    ]);
  });

  it('refuses reserved names, naming them', async () => {
    const names = [
      'PATH',
      'LD_PRELOAD',
      'ld_library_path',
      'HOME',
      'NODE_OPTIONS',
      'BASH_ENV',
      'OH_SECRET_KEY',
      'SESSION_API_KEY',
      'DYLD_INSERT_LIBRARIES',
      'AW_TERMINAL_COMMAND',
      '__aw_command',
    ];
    await expectStatuses(
      names.map((name) => [name, id, { secrets: { [name]: `${MARK}reserved` } }, 422]),
    );
    const answer = await post(id, { secrets: { LD_PRELOAD: `${MARK}x` } });
    expect((answer.json as { detail: { loc: string[]; msg: string }[] }).detail[0]).toMatchObject({
      loc: ['body', 'secrets', 'LD_PRELOAD'],
      msg: expect.stringContaining('reserved'),
    });
  });

  it('refuses malformed names and sources', async () => {
    await expectStatuses([
      ['digit first', id, { secrets: { '1TOKEN': `${MARK}v` } }, 422],
      ['dash', id, { secrets: { 'MY-TOKEN': `${MARK}v` } }, 422],
      ['empty name', id, { secrets: { '': `${MARK}v` } }, 422],
      ['long name', id, { secrets: { ['N'.repeat(MAX_NAME_CHARS + 1)]: `${MARK}v` } }, 422],
      ['unknown kind', id, { secrets: { A: { kind: 'VaultSecret', value: `${MARK}v` } } }, 422],
      ['numeric kind', id, { secrets: { A: { kind: 7, value: `${MARK}v` } } }, 422],
      ['number value', id, { secrets: { A: 42 } }, 422],
      ['array value', id, { secrets: { A: [`${MARK}v`] } }, 422],
      ['null source', id, { secrets: { A: null } }, 422],
      [
        'extra field',
        id,
        { secrets: { A: { kind: 'StaticSecret', value: `${MARK}v`, x: 1 } } },
        422,
      ],
      ['lookup without url', id, { secrets: { A: { kind: 'LookupSecret' } } }, 422],
      [
        'file url',
        id,
        { secrets: { A: { kind: 'LookupSecret', url: 'file:///etc/shadow' } } },
        422,
      ],
      [
        'header injection',
        id,
        {
          secrets: {
            A: { kind: 'LookupSecret', url: lookupBase, headers: { X: `${MARK}\r\nEvil: 1` } },
          },
        },
        422,
      ],
      [
        'too many headers',
        id,
        {
          secrets: {
            A: {
              kind: 'LookupSecret',
              url: lookupBase,
              headers: Object.fromEntries(
                Array.from({ length: 33 }, (_, i) => [`H${i}`, `${MARK}h`]),
              ),
            },
          },
        },
        422,
      ],
      ['secrets a string', id, { secrets: `${MARK}v` }, 422],
      ['no secrets', id, {}, 422],
      ['body an array', id, [`${MARK}v`], 422],
    ]);
  });

  it('bounds value sizes, the count and the body', async () => {
    await expectStatuses([
      [
        'value at the limit',
        id,
        { secrets: { AT_LIMIT: MARK + 'v'.repeat(MAX_VALUE_BYTES - MARK.length) } },
        200,
      ],
      [
        'value past the limit',
        id,
        { secrets: { PAST: MARK + 'v'.repeat(MAX_VALUE_BYTES - MARK.length + 1) } },
        422,
      ],
      [
        'multibyte past the limit',
        id,
        { secrets: { WIDE: MARK + 'é'.repeat(MAX_VALUE_BYTES / 2) } },
        422,
      ],
    ]);
    const fresh = (
      await send('', {
        ...startRequest(scratch.workingDir, scriptedAgent('true')),
        initial_message: null,
      })
    ).json as { id: string };
    const many = Object.fromEntries(
      Array.from({ length: MAX_SECRETS }, (_, index) => [`S_${index}`, `${MARK}${index}-value`]),
    );
    await expectStatuses([
      [
        'one past the count in one request',
        fresh.id,
        { secrets: { ...many, EXTRA: `${MARK}x` } },
        422,
      ],
      ['the count', fresh.id, { secrets: many }, 200],
      ['one more', fresh.id, { secrets: { ONE_MORE: `${MARK}x` } }, 422],
      ['replacing one', fresh.id, { secrets: { S_0: `${MARK}replaced` } }, 200],
    ]);
    const huge = await post(
      id,
      undefined,
      JSON.stringify({ secrets: { BIG: MARK + 'b'.repeat(2 * 1024 * 1024) } }),
    );
    figures.tried += 1;
    expect(huge.status).toBe(413);
    figures.rejected += 1;
  });

  it('runs on when a LookupSecret cannot be had: unreachable, oversized, hanging, failing', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/x?token=${MARK}query`;
    await new Promise((resolve) => closed.close(resolve));
    const started = await send('', {
      ...startRequest(
        scratch.workingDir,
        scriptedAgent('echo "[$GONE_S][$HUGE_S][$HANG_S][$FAIL_S]"'),
      ),
      initial_message: null,
    });
    expect(started.status).toBe(201);
    const run = (started.json as { id: string }).id;
    const answer = await post(run, {
      secrets: {
        GONE_S: {
          kind: 'LookupSecret',
          url: gone,
          headers: { Authorization: `Bearer ${MARK}hdr` },
        },
        HUGE_S: { kind: 'LookupSecret', url: `${lookupBase}/huge` },
        HANG_S: { kind: 'LookupSecret', url: `${lookupBase}/hang` },
        FAIL_S: { kind: 'LookupSecret', url: `${lookupBase}/fail` },
      },
    });
    expect(answer.status).toBe(200);
    const message = { role: 'user', content: [{ type: 'text', text: 'go' }], run: true };
    expect((await send(`/${run}/events`, message)).status).toBe(200);
    expect(
      await waitFor(async () => {
        const info = await call(`${server.url}/api/conversations/${run}`, { headers: AUTH });
        return (info.json as { execution_status?: string }).execution_status === 'finished';
      }, 60_000),
    ).toBe(true);
    const events = await call(`${server.url}/api/conversations/${run}/events/search?limit=100`, {
      headers: AUTH,
    });
    expect(events.status).toBe(200);
    expect(events.text).not.toContain(MARK);
    expect(events.text).toContain('[][][][]');
    expect(events.text).toContain('Secret GONE_S was not set');
    expect(events.text).toContain('Secret HUGE_S was not set');
    expect(events.text).toContain('more than 16384 bytes');
    expect(events.text).toContain('Secret HANG_S was not set');
    expect(events.text).toContain('took longer than 10000 ms');
    expect(events.text).toContain('Secret FAIL_S was not set');
    expect(events.text).toContain('HTTP 500');
    // The server is well and answers.
    expect((await call(`${server.url}/alive`)).status).toBe(200);
  }, 120_000);

  it('never logs nor persists a value', async () => {
    const logs = JSON.stringify(server.logs) + server.stderr;
    expect(logs).not.toContain(MARK);
    for (const text of filesUnder(stateDir)) expect(text).not.toContain(MARK);
  });
});
