import { type RawExchange, rawExchange, requestHead } from '@agent-workspace/agent-server/testing';
import {
  MAX_ALLOW_HOSTS,
  MAX_ENV_VARIABLES,
  MAX_RUNTIME_VOLUME_PATH_LENGTH,
  MAX_RUNTIME_VOLUMES,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RUNTIME_LABELS } from '../src/backend/session-labels.js';
import { call } from '../src/server/test-support/runtime-api-call.js';
import { remoteApiTestContext } from '../src/test-support/remote-api-test-context.js';
import { rawJson } from './support/raw-json.js';
import { RuntimeApiProcess } from './support/runtime-api-process.js';

/** The documented body limit (`MAX_RUNTIME_API_BODY_BYTES`). */
const MAX_BODY_BYTES = 1024 * 1024;

/** One hostile HTTP request. */
interface HttpCase {
  name: string;
  method: string;
  /** The raw request target, percent-encoded as the attacker wants it. */
  target: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** The status the contract names. */
  status: number;
  /** A 422 must name this field: an issue's `loc` starts with it. */
  loc?: (string | number)[];
  /** Refused as unparsable before any route (and so before the key) is looked at. */
  framing?: boolean;
}

const context = remoteApiTestContext();

/** Junk for each field of the `/start` body; each must get a 422 naming the field. */
function startFieldJunk(): [field: string, value: unknown][] {
  const manyVariables = Object.fromEntries(
    Array.from({ length: MAX_ENV_VARIABLES + 1 }, (_, index) => [`V${index}`, 'x']),
  );
  const junk: Record<string, unknown[]> = {
    image: [1, '', 'x'.repeat(513), null, [], {}, 'not/allowed:image'],
    session_id: ['', '../x', 'a'.repeat(129), 'a\u0000b', 'a b', '-x', 1, null],
    environment: [
      [],
      'x',
      { A: 1 },
      { 'A=B': 'c' },
      { '': 'x' },
      { A: 'a\u0000b' },
      manyVariables,
      { SESSION_API_KEY: 'x' },
      { SESSION_API_KEY_SHA256: 'x' },
      { OH_SESSION_API_KEYS_3: 'x' },
      // Names that change how the sandbox's own processes run (RESERVED_ENVIRONMENT_NAMES).
      { LD_PRELOAD: '/workspace/evil.so' },
      { ld_library_path: '/workspace' },
      { NODE_OPTIONS: '--inspect=0.0.0.0:9229' },
      { NODE_TLS_REJECT_UNAUTHORIZED: '0' },
      { AGENT_SERVER_WRITE_CODE_CACHE: '1' },
      { AGENT_WORKSPACE_PROJECTION: 'host' },
      { BASH_ENV: '/workspace/rc' },
      { ENV: '/workspace/rc' },
      { 'BASH_FUNC_cd%%': '() { :; }' },
      { GLIBC_TUNABLES: 'glibc.malloc.mxfast=0' },
      { OPENSSL_CONF: '/workspace/openssl.cnf' },
      { TINI_SUBREAPER: '' },
      { OH_ALLOW_CORS_ORIGINS_0: 'https://evil.example' },
    ],
    working_dir: ['', 1, 'x'.repeat(4097), 'workspace', './x', '/a\u0000b', `/${'x'.repeat(4096)}`],
    run_as_user: [-1, 1.5, 'root', 2 ** 31, true],
    fs_group: [-1, 'staff'],
    image_pull_policy: ['Always', 'Sometimes', '', 1],
    runtime_class: ['', 1, 'x'.repeat(254)],
    resource_factor: [3, 0, -1, '2', 1e308, 1.5, null],
    command: [5, Array(65).fill('x'), 'x'.repeat(4097)],
    // Ours: the session's egress allow-list.
    allow_hosts: [
      'registry.npmjs.org',
      [1],
      [''],
      ['a b'],
      ['127.1'],
      ['0x7f000001'],
      ['*.com'],
      ['example.com:0'],
      ['example.com:65536'],
      ['[::1'],
      ['0.0.0.0'],
      ['x'.repeat(261)],
      Array(MAX_ALLOW_HOSTS + 1).fill('a.example'),
    ],
  };
  return Object.entries(junk).flatMap(([field, values]) =>
    values.map((value) => [field, value] as [string, unknown]),
  );
}

/**
 * Junk `volumes` (ours), each with the field its 422 must name. The server runs with no
 * `allowedBindSources`, so every bind is refused too.
 */
function volumesJunk(): [name: string, volumes: unknown, loc: (string | number)[]][] {
  const volume = { type: 'volume', name: 'v', target: '/v' };
  const at = (index: number, field?: string) => [
    'body',
    'volumes',
    index,
    ...(field ? [field] : []),
  ];
  const target = (value: string) => [{ ...volume, target: value }];
  const name = (value: unknown) => [{ ...volume, name: value }];
  const bind = (source: unknown) => [{ type: 'bind', source, target: '/v' }];
  const huge = `/${'x'.repeat(MAX_RUNTIME_VOLUME_PATH_LENGTH)}`;
  const many = Array.from({ length: MAX_RUNTIME_VOLUMES + 1 }, (_, index) => ({
    ...volume,
    name: `v${index}`,
    target: `/v${index}`,
  }));
  return [
    ['not an array', 'x', ['body', 'volumes']],
    ['too many', many, ['body', 'volumes']],
    ['relative target', target('v'), at(0, 'target')],
    ['dot-dot target', target('/a/../b'), at(0, 'target')],
    ['trailing slash target', target('/v/'), at(0, 'target')],
    ['root target', target('/'), at(0, 'target')],
    ['agent-server target', target('/opt/agent-server'), at(0, 'target')],
    ['proc target', target('/proc/self'), at(0, 'target')],
    ['NUL target', target('/a\u0000b'), at(0, 'target')],
    ['huge target', target(huge), at(0, 'target')],
    ['working-dir target', target('/workspace'), at(0, 'target')],
    ['duplicate target', [volume, { ...volume, name: 'w' }], at(1, 'target')],
    ['nested target', [volume, { ...volume, name: 'w', target: '/v/w' }], at(1, 'target')],
    ['empty name', name(''), at(0, 'name')],
    ['slash name', name('../x'), at(0, 'name')],
    ['dash name', name('-x'), at(0, 'name')],
    ['huge name', name('x'.repeat(65)), at(0, 'name')],
    ['number name', name(1), at(0, 'name')],
    ['unknown type', [{ type: 'tmpfs', target: '/v' }], at(0, 'type')],
    ['unknown field', [{ ...volume, driver: 'x' }], at(0)],
    ['read_only not boolean', [{ ...volume, read_only: 'yes' }], at(0, 'read_only')],
    ['bind not allowed', bind('/etc'), at(0, 'source')],
    ['bind traversal', bind('/tmp/../etc'), at(0, 'source')],
    ['bind relative', bind('etc'), at(0, 'source')],
    ['bind huge', bind(huge), at(0, 'source')],
  ];
}

context.describe('runtime-api: malformed input on every route', () => {
  let server: RuntimeApiProcess;
  const violations: string[] = [];
  let tried = 0;

  beforeAll(async () => {
    server = await RuntimeApiProcess.start({ image: context.image, namespace: context.namespace });
  });

  afterAll(async () => {
    console.log(`malformed input: ${tried} hostile requests, ${violations.length} violations`);
    await server?.stop();
    await context.cleanup();
  });

  /** Sends one case raw and records a violation when the answer breaks the contract. */
  async function send(testCase: HttpCase, auth: boolean): Promise<void> {
    tried++;
    const body = testCase.body === undefined ? undefined : Buffer.from(testCase.body);
    const headers = {
      ...(auth ? { 'X-API-Key': server.apiKey } : {}),
      ...(body === undefined ? {} : { 'Content-Length': body.length }),
      Connection: 'close',
      ...testCase.headers,
    };
    const head = Buffer.from(requestHead(testCase.method, testCase.target, headers));
    const exchange = await rawExchange(server.port, body ? Buffer.concat([head, body]) : head);
    const expected =
      auth || testCase.framing ? testCase : { ...testCase, status: 401, loc: undefined };
    const problem = answerProblem(exchange, expected);
    if (problem) {
      const seen = exchange.response
        ? `${exchange.response.status} ${exchange.response.body.toString('utf8').slice(0, 300)}`
        : `no answer (closed: ${exchange.closed})`;
      violations.push(
        `${testCase.method} ${testCase.target.slice(0, 80)} (${testCase.name}, auth ${auth}): ${problem}; got ${seen}`,
      );
    }
  }

  async function assertServing(): Promise<void> {
    expect((await call(server.url, '/health')).status).toBe(200);
    const sessions = await call(server.url, '/sessions', { apiKey: server.apiKey });
    expect([sessions.status, sessions.json]).toEqual([200, { sessions: [] }]);
    expect(server.exit).toBeUndefined();
  }

  it('refuses malformed requests with a 4xx {"detail"}, 401 first without the key', async () => {
    const before = violations.length;
    const cases = httpCases(context.image);
    for (const auth of [true, false]) await runPool(cases, 8, (testCase) => send(testCase, auth));
    await assertServing();
    expect(violations.slice(before)).toEqual([]);
    // Nothing was started by any of it.
    const containers = await context.docker.listContainers({
      all: true,
      filters: { label: [`${RUNTIME_LABELS.namespace}=${context.namespace}`] },
    });
    expect(containers).toEqual([]);
  });

  it('refuses garbage on raw connections (400, connection closed) and keeps serving', async () => {
    const garbage: [string, string | Buffer][] = [
      ['not http', 'GARBAGE\r\n\r\n'],
      ['binary', Buffer.from([0, 1, 2, 3, 255, 254, 13, 10, 13, 10])],
      ['negative length', 'POST /start HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n'],
      [
        'two lengths',
        'POST /start HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      ],
      [
        'bad chunk',
        'POST /start HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n',
      ],
      ['header without colon', 'GET /health HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n'],
      [
        'headers over 16 KiB',
        `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      ],
      ['url over 16 KiB', `GET /sessions/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ];
    const before = violations.length;
    for (const [name, data] of garbage) {
      tried++;
      const exchange = await rawExchange(server.port, data, { waitForClose: true });
      const status = exchange.response?.status ?? 0;
      const okStatus = status === 400 || status === 431 || status === 414;
      if (!okStatus || !exchange.closed || typeof rawJson(exchange.response)?.detail !== 'string') {
        violations.push(`raw ${name}: status ${status}, closed ${exchange.closed}`);
      }
    }
    await assertServing();
    expect(violations.slice(before)).toEqual([]);
  });

  it('never logs a key, whatever it was sent', () => {
    expect(server.output).toContain('"msg":"incoming request"');
    expect(server.output).not.toContain(server.apiKey);
    expect(server.output).not.toContain(server.secret);
  });

  /** Every hostile request, with the answer the contract names. */
  function httpCases(image: string): HttpCase[] {
    const json = { 'Content-Type': 'application/json' };
    const start = (name: string, body: string | Buffer, status: number, loc?: HttpCase['loc']) => ({
      name,
      method: 'POST',
      target: '/start',
      headers: json,
      body,
      status,
      ...(loc ? { loc } : {}),
    });
    const valid = { image, session_id: 'malformed' };
    const cases: HttpCase[] = [
      start('truncated JSON', '{"image":', 422, ['body']),
      start('not JSON', 'not json', 422, ['body']),
      start(
        'non-UTF-8',
        Buffer.from([0x7b, 0x22, 0x69, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        422,
        ['body'],
      ),
      start('deep nesting', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, 422, ['body']),
      start('deep object nesting', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, 422, ['body']),
      start('empty body', '', 422, ['body']),
      start('array body', '[]', 422, ['body']),
      start('null body', 'null', 422, ['body']),
      start('string body', '"x"', 422, ['body']),
      start('unknown field', JSON.stringify({ ...valid, gpus: 1 }), 422, ['body', 'gpus']),
      start('missing image', JSON.stringify({ session_id: 'x' }), 422, ['body', 'image']),
      start('oversized body', `{"image":"${'x'.repeat(MAX_BODY_BYTES)}"}`, 413),
      {
        name: 'unsupported content type',
        method: 'POST',
        target: '/start',
        headers: { 'Content-Type': 'application/xml' },
        body: '<start/>',
        status: 415,
      },
      {
        name: 'JSON sent as text',
        method: 'POST',
        target: '/start',
        headers: { 'Content-Type': 'text/plain' },
        body: JSON.stringify(valid),
        status: 422,
        loc: ['body'],
      },
    ];
    for (const [field, value] of startFieldJunk()) {
      const loc =
        field === 'environment' && value && typeof value === 'object' && !Array.isArray(value)
          ? ['body', 'environment']
          : ['body', field];
      cases.push(
        start(
          `${field}=${JSON.stringify(value).slice(0, 40)}`,
          JSON.stringify({ ...valid, [field]: value }),
          422,
          loc,
        ),
      );
    }
    for (const [name, volumes, loc] of volumesJunk()) {
      cases.push(start(`volumes: ${name}`, JSON.stringify({ ...valid, volumes }), 422, loc));
    }
    for (const route of ['/pause', '/resume', '/stop']) {
      const junk: [unknown, HttpCase['loc']][] = [
        [{}, ['body', 'runtime_id']],
        [{ runtime_id: '' }, ['body', 'runtime_id']],
        [{ runtime_id: 'a'.repeat(129) }, ['body', 'runtime_id']],
        [{ runtime_id: 1 }, ['body', 'runtime_id']],
        [{ runtime_id: null }, ['body', 'runtime_id']],
        [{ runtime_id: 'x', extra: 1 }, ['body', 'extra']],
        [[], ['body']],
      ];
      for (const [body, loc] of junk) {
        cases.push({
          name: JSON.stringify(body).slice(0, 40),
          method: 'POST',
          target: route,
          headers: json,
          body: JSON.stringify(body),
          status: 422,
          ...(loc ? { loc } : {}),
        });
      }
      cases.push({ name: 'no body', method: 'POST', target: route, status: 422, loc: ['body'] });
    }
    const sessionJunk = [
      '%00',
      '..%2F..%2Fetc',
      'a%2Fb',
      'a'.repeat(129),
      'a'.repeat(5000),
      '%20x',
      '-x',
    ];
    for (const id of sessionJunk) {
      cases.push({
        name: 'bad session id',
        method: 'GET',
        target: `/sessions/${id}`,
        status: 422,
        loc: ['path', 'session_id'],
      });
    }
    cases.push(
      {
        name: 'bad percent-encoding',
        method: 'GET',
        target: '/sessions/%E0%A4%A',
        status: 400,
        framing: true,
      },
      {
        name: 'empty session id',
        method: 'GET',
        target: '/sessions/',
        status: 422,
        loc: ['path', 'session_id'],
      },
      { name: 'unknown route', method: 'GET', target: '/no-such-route', status: 404 },
      { name: 'wrong method', method: 'DELETE', target: '/start', status: 404 },
      {
        name: 'GET with a body',
        method: 'GET',
        target: '/sessions',
        headers: json,
        body: '{"x":1}',
        status: 200,
      },
    );
    return cases;
  }
});

/** What is wrong with an answer, or `undefined` when it keeps the contract. */
function answerProblem(exchange: RawExchange, expected: HttpCase): string | undefined {
  const { response } = exchange;
  if (!response) return 'no answer';
  if (response.status !== expected.status) return `expected ${expected.status}`;
  const body = rawJson(response);
  if (expected.status >= 400 && (body === undefined || !('detail' in body))) {
    return 'no {"detail"} envelope';
  }
  if (expected.loc) {
    const locs = Array.isArray(body.detail)
      ? body.detail.map((issue: { loc: unknown[] }) => issue.loc)
      : [];
    const named = locs.some((loc: unknown[]) =>
      expected.loc!.every((part, index) => loc[index] === part),
    );
    if (!named) return `no issue at ${JSON.stringify(expected.loc)}`;
  }
  return undefined;
}

/** Runs `work` over `items`, `size` at a time. */
async function runPool<T>(items: T[], size: number, work: (item: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: size }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}
