import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MAX_COMMAND_BYTES, MAX_ENV_BYTES, MAX_ENV_VARIABLES } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import { call, multipartBody, type RawExchange, rawExchange, requestHead } from './support/http.js';
import { AUTH, createScratch, KEY, type Scratch, ServerProcess } from './support/server-process.js';
import { awaitServerClose, encodeFrame, rawWebSocket, WsClient } from './support/websocket.js';

/** One hostile HTTP request. */
interface HttpCase {
  name: string;
  method: string;
  /** The raw request target, already percent-encoded as the attacker wants it. */
  target: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** Send `X-Session-API-Key` (default true). */
  auth?: boolean;
  /** The status the contract names, when it names one. */
  status?: number;
  /** A 422 must carry an issue whose `loc` starts with this. */
  loc?: (string | number)[];
  /** The server must close the connection after answering (a request it cannot parse). */
  mustClose?: boolean;
}

/** Garbage written to a raw connection instead of a request. */
interface RawCase {
  name: string;
  data: string | Buffer;
}

const ZERO_ID = '0'.repeat(32);

/** A well-formed conversation id no conversation has. */
const UNKNOWN_CONVERSATION_ID = '00000000-0000-4000-8000-000000000000';
const LONG = 'a'.repeat(5000);
const MAX_UPLOAD = 1024 * 1024;

/**
 * Junk for every parameter the OpenAPI document lists, chosen so that each value must be refused
 * (a value that may be valid, e.g. `order__gt=-1`, is not here). A parameter missing from this
 * table fails the test: a new route input needs its junk.
 */
const PARAMETER_JUNK: Record<string, string[]> = {
  path: ['', '%00', 'a%00b', `%2F${LONG}`, '%2Ftmp%2F%00x'],
  ref: ['', '%00', '-x', '--output=%2Ftmp%2Fpwned', LONG, 'no-such-ref', 'HEAD%0Ax', '%ff%fe'],
  commit: ['', 'zz', 'abc', 'g'.repeat(40), '0'.repeat(65), '%00', LONG, 'abcd%00'],
  kind__eq: ['Nope', '', '%00', 'BashCommand%00'],
  command_id__eq: ['xyz', '0'.repeat(31), '0'.repeat(33), '%00', '', 'g'.repeat(32)],
  timestamp__gte: ['yesterday', '2024-13-45T99:99:99', '', '%00', '1e309'],
  timestamp__lt: ['yesterday', '2024-02-30T00:00:00', '', '%00', '-1'],
  order__gt: ['abc', '1.5', '1e309', '-1e309', 'NaN'],
  sort_order: ['SIDEWAYS', '', 'timestamp', '%00'],
  page_id: [
    'garbage',
    '%00',
    '2024-01-01T00:00:00.000000Z%00',
    LONG,
    '2024-99-01T00:00:00.000000Z',
  ],
  limit: ['0', '-1', '101', '1e309', 'abc', '1.5', 'NaN', ''],
  include_hidden: ['maybe', '', '%00', '2'],
  sha: ['HEAD', '-o', '--output=x', 'abc', 'g'.repeat(40), '0'.repeat(65), '%00', 'abcd%00'],
  conversation_id: ['xyz', '%00', LONG, '..%2F..%2Fetc', '0'.repeat(32), '%ff%fe'],
  ids: ['xyz', '%00', '', LONG],
  status: ['nope', '', '%00', 'RUNNING'],
  kind: ['', '%00', 'a%20b', LONG, '1abc'],
  source: ['robot', '', '%00', 'USER'],
  event_id: [
    'xyz',
    '0'.repeat(31),
    '0'.repeat(33),
    'g'.repeat(32),
    `%00${'0'.repeat(31)}`,
    LONG,
    '..%2F..%2Fetc',
    '%ff'.repeat(16),
  ],
};

/** Junk of one route's parameter where the shared junk would be valid (`git/commits` allows 200). */
const ROUTE_PARAMETER_JUNK: Record<string, string[]> = {
  '/api/file/archive format': ['zip', '', '%00', 'TAR.GZ', LONG],
  '/api/file/archive base_ref': [
    '',
    '%00',
    '-x',
    '--output=%2Ftmp%2Fpwned',
    LONG,
    'no-such-ref',
    'HEAD%0Ax',
    '%ff%fe',
  ],
  '/api/file/archive use_default_excludes': ['maybe', '', '%00', '2'],
  '/api/file/archive exclude': ['', '%00', LONG, '[', '..%2F..%2Fx', '%2F', '%ff%fe'],
  '/api/git/commits limit': ['0', '-1', '201', '1e309', 'abc', '1.5', 'NaN', ''],
  '/api/file/search_subdirs page_id': ['%00', 'a%00b', LONG],
};

/** Wrong values of each field of the bash request body (`loc: ["body", field]`). */
const BODY_FIELD_JUNK: Record<string, unknown[]> = {
  command: [
    1,
    true,
    null,
    [],
    {},
    '',
    'a\u0000b',
    'x'.repeat(MAX_COMMAND_BYTES + 1),
    '€'.repeat(Math.ceil(MAX_COMMAND_BYTES / 3) + 1),
  ],
  cwd: [1, true, [], {}, '', 'a\u0000b', `/${'d'.repeat(5000)}`],
  timeout: ['5', -1, 0, 2_147_484, true, [], {}, 1e300],
};

describe('malformed input on every route', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  const figures = new Figures('malformed input');
  const violations: string[] = [];

  beforeAll(async () => {
    scratch = await createScratch('malformed');
    const work = scratch.workingDir;
    execFileSync('git', ['init', '-q'], { cwd: work });
    writeFileSync(path.join(work, 'file.txt'), 'hello\n');
    execFileSync(
      'git',
      ['-c', 'user.name=r', '-c', 'user.email=r@r', 'commit', '-q', '--allow-empty', '-m', 'x'],
      { cwd: work },
    );
    mkdirSync(path.join(work, 'dir'));
    writeFileSync(path.join(work, 'blocker'), 'a file in the way');
    execFileSync('mkfifo', [path.join(work, 'fifo')]);
    server = await ServerProcess.start({
      workingDir: work,
      runtimeDir: scratch.runtimeDir,
      flags: ['--max-upload-bytes', String(MAX_UPLOAD)],
    });
  });

  afterAll(async () => {
    figures.observeRss(server?.peakRss ?? 0);
    figures.save();
    await server?.stop();
    await scratch?.remove();
  });

  /** Judges one HTTP answer; records a violation (with the request) when it breaks the contract. */
  function judge(name: string, exchange: RawExchange, expected: Partial<HttpCase> = {}): void {
    figures.tried++;
    const problem = answerProblem(exchange, expected);
    if (problem === undefined) {
      figures.rejected++;
      return;
    }
    figures.escapes++;
    const seen = exchange.response
      ? `${exchange.response.status} ${exchange.response.body.toString('utf8').slice(0, 300)}`
      : `no answer (closed: ${exchange.closed}, error: ${exchange.error ?? 'none'})`;
    violations.push(`${name}: ${problem}; got ${seen}`);
  }

  async function sendHttp(testCase: HttpCase): Promise<void> {
    const body = testCase.body === undefined ? undefined : Buffer.from(testCase.body);
    const headers: Record<string, string | number> = {
      ...(testCase.auth === false ? {} : { 'X-Session-API-Key': KEY }),
      ...(body === undefined || testCase.headers?.['Transfer-Encoding'] !== undefined
        ? {}
        : { 'Content-Length': body.length }),
      Connection: 'close',
      ...testCase.headers,
    };
    const head = requestHead(testCase.method, testCase.target, headers);
    const data = body === undefined ? Buffer.from(head) : Buffer.concat([Buffer.from(head), body]);
    const exchange = await rawExchange(server.port, data);
    judge(`${testCase.method} ${short(testCase.target)} (${testCase.name})`, exchange, testCase);
  }

  async function assertServing(): Promise<void> {
    const alive = await call(`${server.url}/alive`);
    expect(alive.status).toBe(200);
    const run = await call(`${server.url}/api/bash/execute_bash_command`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'echo still-serving', timeout: 30 }),
    });
    expect(run.status).toBe(200);
    expect((run.json as { stdout: string }).stdout).toBe('still-serving\n');
    expect(server.exit).toBeUndefined();
  }

  it('refuses malformed requests on every route of /openapi.json with a 4xx {"detail"}', async () => {
    const before = violations.length;
    const openapi = (await call(`${server.url}/openapi.json`)).json as OpenApi;
    const cases = httpCases(openapi, scratch.workingDir);
    expect(cases.uncovered, 'parameters without junk in PARAMETER_JUNK').toEqual([]);
    await runPool(cases.list, 8, sendHttp);
    await assertServing();
    expect(violations.slice(before)).toEqual([]);
  });

  it('refuses garbage on raw connections and keeps serving', async () => {
    const before = violations.length;
    for (const testCase of rawCases()) {
      const exchange = await rawExchange(server.port, testCase.data, { waitForClose: true });
      judge(`raw ${testCase.name}`, exchange, { mustClose: true });
    }
    await assertServing();
    expect(violations.slice(before)).toEqual([]);
  });

  it('refuses bad websocket upgrades and invalid frames, closing only the connection', async () => {
    const before = violations.length;
    for (const socketPath of ['/sockets/exec', '/sockets/bash-events']) {
      // Plain GETs and broken upgrades of the websocket routes are HTTP answers.
      for (const [name, headers] of [
        ['no upgrade', { Upgrade: '', Connection: 'close' }],
        ['bad key', { 'Sec-WebSocket-Key': 'short' }],
        ['bad version', { 'Sec-WebSocket-Version': '99' }],
      ] as const) {
        const raw = await rawWebSocket(server.port, socketPath, headers).catch(() => undefined);
        const exchange: RawExchange = {
          response: raw?.response,
          closed: true,
          error: undefined,
          elapsedMs: 0,
        };
        raw?.socket.destroy();
        judge(`GET ${socketPath} (${name})`, exchange);
      }
      const wrongKey = await rawWebSocket(server.port, `${socketPath}?session_api_key=wrong`);
      wrongKey.socket.destroy();
      judge(
        `GET ${socketPath}?session_api_key=wrong`,
        { response: wrongKey.response, closed: true, error: undefined, elapsedMs: 0 },
        { status: 403 },
      );

      // Frames that break RFC 6455: the server must close the connection (and nothing else).
      for (const [name, frame] of invalidFrames()) {
        figures.tried++;
        const raw = await rawWebSocket(server.port, socketPath);
        if (raw.response.status !== 101) {
          figures.escapes++;
          violations.push(`${socketPath} handshake for "${name}": ${raw.response.status}`);
          raw.socket.destroy();
          continue;
        }
        raw.socket.write(frame);
        const { ended } = await awaitServerClose(raw);
        if (ended) figures.rejected++;
        else {
          figures.escapes++;
          violations.push(`${socketPath} frame "${name}": the connection was not closed in 15 s`);
        }
      }
    }
    await assertServing();
    expect(violations.slice(before)).toEqual([]);
  });

  it('answers junk exec frames with error frames and keeps the socket usable', async () => {
    const before = violations.length;
    // Before authentication, anything but a valid auth frame closes with 4001.
    for (const first of ['not json', '{"type":"start","command":"true"}', { type: 'auth' }]) {
      figures.tried++;
      const client = await WsClient.connect(server.url, '/sockets/exec', false);
      client.send(first);
      const closed = await Promise.race([
        client.closed,
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 15_000)),
      ]);
      if (closed?.code === 4001) figures.rejected++;
      else {
        figures.escapes++;
        violations.push(`exec first frame ${JSON.stringify(first)}: closed with ${closed?.code}`);
        client.close(true);
      }
    }

    const client = await WsClient.connect(server.url, '/sockets/exec');
    for (const [name, frame, field] of junkExecFrames()) {
      figures.tried++;
      const from = client.frames.length;
      client.send(frame);
      const answer = await client.waitFor((reply) => reply.type === 'error', 15_000, from);
      const detail = String(answer?.detail ?? '');
      if (
        answer &&
        answer.code !== 'INTERNAL_ERROR' &&
        (field === undefined || detail.includes(field))
      ) {
        figures.rejected++;
      } else {
        figures.escapes++;
        violations.push(
          `exec frame ${name}: expected an error frame${field ? ` naming ${field}` : ''}, got ${JSON.stringify(answer ?? client.frames.slice(from)).slice(0, 300)}`,
        );
      }
      if (client.isClosed) {
        violations.push(`exec frame ${name}: the socket was closed`);
        break;
      }
    }
    if (!client.isClosed) {
      client.send({ type: 'start', command: 'echo ok', request_id: 'last' });
      const exit = await client.waitFor((frame) => frame.type === 'exit');
      expect(exit?.exit_code).toBe(0);
    }
    client.close();

    const events = await WsClient.connect(server.url, '/sockets/bash-events');
    for (const frame of [
      'not json',
      '{}',
      '{"command":1}',
      { command: 'x'.repeat(MAX_COMMAND_BYTES + 1) },
    ]) {
      figures.tried++;
      const from = events.frames.length;
      events.send(frame);
      const answer = await events.waitFor((reply) => reply.kind === 'BashError', 15_000, from);
      if (answer) figures.rejected++;
      else {
        figures.escapes++;
        violations.push(`bash-events frame ${JSON.stringify(frame).slice(0, 80)}: no BashError`);
      }
    }
    events.close();
    await assertServing();
    expect(violations.slice(before)).toEqual([]);
  });
});

/** What a hostile request must get: a 4xx with a JSON `{"detail": ...}` (422s name the field). */
function answerProblem(exchange: RawExchange, expected: Partial<HttpCase>): string | undefined {
  const { response } = exchange;
  if (!response) return 'expected a 4xx answer';
  if (response.status < 400 || response.status > 499) return 'expected a 4xx status';
  if (expected.status !== undefined && response.status !== expected.status) {
    return `expected ${expected.status}`;
  }
  if (expected.mustClose && !exchange.closed) return 'the connection stayed open after the error';
  let body: { detail?: unknown };
  try {
    body = JSON.parse(response.body.toString('utf8')) as { detail?: unknown };
  } catch {
    return 'expected a JSON body';
  }
  if (body === null || typeof body !== 'object' || body.detail === undefined) {
    return 'expected a {"detail": ...} body';
  }
  if (response.status === 422) {
    const issues = body.detail as { loc?: unknown }[];
    if (!Array.isArray(issues) || !issues.every((issue) => Array.isArray(issue.loc))) {
      return 'expected 422 issues with loc';
    }
    const loc = expected.loc;
    if (
      loc !== undefined &&
      !issues.some((issue) => loc.every((part, index) => (issue.loc as unknown[])[index] === part))
    ) {
      return `expected an issue at loc ${JSON.stringify(loc)}`;
    }
  }
  return undefined;
}

interface OpenApiParameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: unknown;
}

interface OpenApi {
  paths: Record<
    string,
    Record<string, { parameters?: OpenApiParameter[]; requestBody?: unknown; security?: unknown[] }>
  >;
}

/** Hostile requests for every route and parameter of the OpenAPI document. */
function httpCases(openapi: OpenApi, work: string): { list: HttpCase[]; uncovered: string[] } {
  const list: HttpCase[] = [];
  const uncovered: string[] = [];
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
  const validValue = (route: string, name: string): string => {
    if (name === 'path')
      return encodeURIComponent(route.startsWith('/api/git') ? '.' : `${work}/file.txt`);
    return '';
  };
  for (const [route, operations] of Object.entries(openapi.paths)) {
    const concrete = route
      .replace('{event_id}', ZERO_ID)
      .replace('{conversation_id}', UNKNOWN_CONVERSATION_ID)
      .replace('{sha}', 'abcd');
    for (const method of methods) {
      if (operations[method.toLowerCase()] === undefined) {
        list.push({
          name: 'wrong method',
          method,
          target: concrete,
          body: method === 'GET' ? undefined : '{}',
          headers: { 'Content-Type': 'application/json' },
        });
      }
    }
    for (const [verb, operation] of Object.entries(operations)) {
      const method = verb.toUpperCase();
      const parameters = operation.parameters ?? [];
      const required = parameters.filter(
        (parameter) => parameter.required && parameter.in === 'query',
      );
      const baseQuery = required.map((p) => `${p.name}=${validValue(route, p.name)}`);
      const withQuery = (parts: string[]) =>
        parts.length > 0 ? `${concrete}?${parts.join('&')}` : concrete;
      const isApi = route.startsWith('/api/');
      const bodyFor = route === '/api/file/upload' ? multipartBody('x') : undefined;
      const uploadHeaders: Record<string, string> = bodyFor
        ? { 'Content-Type': bodyFor.contentType }
        : {};
      const uploadBody = bodyFor?.body;
      if (isApi) {
        const target = withQuery(baseQuery);
        list.push({
          name: 'no key',
          method,
          target,
          auth: false,
          status: 401,
          headers: uploadHeaders,
          body: uploadBody,
        });
        for (const key of [
          'wrong',
          KEY.toUpperCase(),
          `${KEY}x`,
          'k'.repeat(8000),
          `${KEY}\u00ff`,
        ]) {
          list.push({
            name: 'wrong key',
            method,
            target,
            auth: false,
            headers: { 'X-Session-API-Key': key, ...uploadHeaders },
            body: uploadBody,
            status: 401,
          });
        }
        list.push({
          name: 'percent-encoded /api',
          method,
          target: `/%61pi${target.slice(4)}`,
          auth: false,
          headers: uploadHeaders,
          body: uploadBody,
        });
      }
      for (const parameter of parameters) {
        const junk =
          ROUTE_PARAMETER_JUNK[`${route} ${parameter.name}`] ?? PARAMETER_JUNK[parameter.name];
        if (!junk) {
          uncovered.push(`${method} ${route} ${parameter.in}:${parameter.name}`);
          continue;
        }
        if (parameter.in === 'path') {
          for (const value of junk) {
            list.push({
              name: `${parameter.name}=${short(value)}`,
              method,
              target: route
                .replace(`{${parameter.name}}`, value)
                .replace('{event_id}', ZERO_ID)
                .replace('{conversation_id}', UNKNOWN_CONVERSATION_ID),
              loc: ['path', parameter.name],
            });
          }
          continue;
        }
        const others = baseQuery.filter((part) => !part.startsWith(`${parameter.name}=`));
        if (parameter.required) {
          list.push({
            name: `missing ${parameter.name}`,
            method,
            target: withQuery(others),
            status: 422,
            loc: ['query', parameter.name],
            headers: uploadHeaders,
            body: uploadBody,
          });
        }
        const valid = parameter.required
          ? validValue(route, parameter.name)
          : (PARAMETER_JUNK[parameter.name]?.[0] ?? '');
        // A parameter that takes a list (`exclude` of the archive) is repeated by design.
        const repeatable = JSON.stringify(parameter.schema ?? {}).includes('"type":"array"');
        if (!repeatable) {
          list.push({
            name: `repeated ${parameter.name}`,
            method,
            target: withQuery([
              ...others,
              `${parameter.name}=${valid}`,
              `${parameter.name}=${valid}`,
            ]),
            status: 422,
            loc: ['query', parameter.name],
            headers: uploadHeaders,
            body: uploadBody,
          });
        }
        if (parameter.required) {
          // `path[]=` is another (unknown) parameter: the real one is missing.
          list.push({
            name: `${parameter.name}[]=`,
            method,
            target: withQuery([
              ...others,
              `${parameter.name}[]=${valid}`,
              `${parameter.name}[x]=1`,
            ]),
            headers: uploadHeaders,
            body: uploadBody,
            status: 422,
            loc: ['query', parameter.name],
          });
        }
        for (const value of junk) {
          list.push({
            name: `${parameter.name}=${short(value)}`,
            method,
            target: withQuery([...others, `${parameter.name}=${value}`]),
            headers: uploadHeaders,
            body: uploadBody,
          });
        }
      }
    }
  }

  // Bodies of the two bash routes that take an ExecuteBashRequest.
  for (const route of ['/api/bash/start_bash_command', '/api/bash/execute_bash_command']) {
    const json = { 'Content-Type': 'application/json' };
    const post = (name: string, body: string | Buffer, extra: Partial<HttpCase> = {}) =>
      list.push({ name, method: 'POST', target: route, headers: json, body, ...extra });
    for (const [field, values] of Object.entries(BODY_FIELD_JUNK)) {
      for (const value of values) {
        const body = { command: 'true', timeout: 5, [field]: value };
        post(`${field}=${short(JSON.stringify(value))}`, JSON.stringify(body), {
          status: 422,
          loc: ['body', field],
        });
      }
    }
    post('missing command', '{"timeout":5}', { status: 422, loc: ['body', 'command'] });
    post('timeout 1e400', '{"command":"true","timeout":1e400}', { status: 422 });
    for (const body of [
      '',
      '{',
      '{"command":',
      'null',
      '[]',
      '"str"',
      '123',
      '{"command":"true"}x',
      'NaN',
      '{"command":"true",}',
      "{'command':'true'}",
    ]) {
      post(`body ${JSON.stringify(body)}`, body, { status: 422 });
    }
    post(
      'invalid UTF-8 in a string',
      Buffer.from([...Buffer.from('{"command":"echo '), 0xff, 0xfe, ...Buffer.from('"}')]),
    );
    post(
      'invalid UTF-8 outside strings',
      Buffer.from([0xff, 0xfe, ...Buffer.from('{"command":"true"}')]),
    );
    post('body > 1 MiB', JSON.stringify({ command: 'true', pad: 'x'.repeat(1024 * 1024) }), {
      status: 413,
    });
    post('nested 10000 deep', `${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    post('cwd is missing', JSON.stringify({ command: 'true', cwd: '/no/such/dir' }), {
      status: 400,
    });
    post('cwd is a file', JSON.stringify({ command: 'true', cwd: `${work}/file.txt` }), {
      status: 400,
    });
    list.push({
      name: 'text/plain',
      method: 'POST',
      target: route,
      headers: { 'Content-Type': 'text/plain' },
      body: '{"command":"true"}',
    });
    list.push({
      name: 'form',
      method: 'POST',
      target: route,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'command=true',
    });
    list.push({
      name: 'no content type',
      method: 'POST',
      target: route,
      body: '{"command":"true"}',
    });
    list.push({
      name: 'multipart',
      method: 'POST',
      target: route,
      headers: { 'Content-Type': multipartBody('x').contentType },
      body: multipartBody('x').body,
    });
    list.push({
      name: 'chunked junk',
      method: 'POST',
      target: route,
      headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      body: '5\r\n{"com\r\n0\r\n\r\n',
    });
  }

  // Uploads: destinations, framing and limits.
  const upload = (
    name: string,
    target: string,
    content: { contentType: string; body: Buffer } | undefined,
    extra: Partial<HttpCase> = {},
  ) =>
    list.push({
      name,
      method: 'POST',
      target: `/api/file/upload?path=${encodeURIComponent(target)}`,
      headers: content ? { 'Content-Type': content.contentType } : {},
      body: content?.body,
      ...extra,
    });
  upload('relative path', 'file.txt', multipartBody('x'), { status: 400 });
  upload('a directory', `${work}/dir`, multipartBody('x'), { status: 400 });
  upload('a directory with a slash', `${work}/dir/`, multipartBody('x'), { status: 400 });
  upload('/dev/null', '/dev/null', multipartBody('x'), { status: 400 });
  upload('a FIFO', `${work}/fifo`, multipartBody('x'), { status: 400 });
  upload('below a file', `${work}/blocker/x`, multipartBody('x'), { status: 400 });
  upload('no body', `${work}/new.txt`, undefined, { status: 422, loc: ['body', 'file'] });
  upload(
    'JSON body',
    `${work}/new.txt`,
    { contentType: 'application/json', body: Buffer.from('{"file":"x"}') },
    { status: 422, loc: ['body', 'file'] },
  );
  upload('wrong field', `${work}/new.txt`, multipartBody('x', 'data'), {
    status: 422,
    loc: ['body', 'file'],
  });
  upload('boundary mismatch', `${work}/new.txt`, {
    contentType: 'multipart/form-data; boundary=abc',
    body: multipartBody('x').body,
  });
  upload('no boundary', `${work}/new.txt`, {
    contentType: 'multipart/form-data',
    body: multipartBody('x').body,
  });
  upload('garbage multipart', `${work}/new.txt`, {
    contentType: 'multipart/form-data; boundary=abc',
    body: Buffer.from('--abc\r\ngarbage\r\n\r\n\u0000\u0001--abc--'),
  });
  upload('empty multipart', `${work}/new.txt`, {
    contentType: 'multipart/form-data; boundary=abc',
    body: Buffer.from('--abc--\r\n'),
  });
  upload('file over the limit', `${work}/big.bin`, multipartBody(Buffer.alloc(MAX_UPLOAD + 1)), {
    status: 413,
  });
  upload('declared length over the limit', `${work}/big.bin`, multipartBody('x'), {
    status: 413,
    headers: {
      'Content-Type': multipartBody('x').contentType,
      'Content-Length': MAX_UPLOAD + 128 * 1024,
    },
  });
  const manyParts = Array.from(
    { length: 101 },
    (_, index) => `--abc\r\nContent-Disposition: form-data; name="f${index}"\r\n\r\nv\r\n`,
  ).join('');
  upload(
    '101 parts',
    `${work}/new.txt`,
    {
      contentType: 'multipart/form-data; boundary=abc',
      body: Buffer.from(`${manyParts}--abc--\r\n`),
    },
    { status: 413 },
  );
  const bigField = `--abc\r\nContent-Disposition: form-data; name="f"\r\n\r\n${'v'.repeat(65 * 1024)}\r\n`;
  upload('a 65 KiB field alone', `${work}/new.txt`, {
    contentType: 'multipart/form-data; boundary=abc',
    body: Buffer.from(`${bigField}--abc--\r\n`),
  });
  // The README's limits table: 64 KiB fields, 413.
  const filePart =
    '--abc\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\nx\r\n';
  upload(
    'a 65 KiB field and the file',
    `${work}/new.txt`,
    {
      contentType: 'multipart/form-data; boundary=abc',
      body: Buffer.from(`${bigField}${filePart}--abc--\r\n`),
    },
    { status: 413 },
  );

  // Downloads of what is not a regular file, and the git routes' argument errors.
  const download = (name: string, target: string, status: number) =>
    list.push({
      name,
      method: 'GET',
      target: `/api/file/download?path=${encodeURIComponent(target)}`,
      status,
    });
  download('relative path', 'file.txt', 400);
  download('missing file', `${work}/missing.txt`, 404);
  download('a directory', `${work}/dir`, 400);
  download('a FIFO', `${work}/fifo`, 400);
  download('/dev/zero', '/dev/zero', 400);
  download('below a file', `${work}/blocker/x`, 404);
  list.push({
    name: 'ref with commit',
    method: 'GET',
    target: `/api/git/diff?path=file.txt&ref=HEAD&commit=${'a'.repeat(40)}`,
    status: 400,
  });
  list.push({ name: 'a directory', method: 'GET', target: '/api/git/diff?path=dir', status: 400 });

  // The batch get (a GET with a JSON body) and the clear.
  const batch = (name: string, body: string | Buffer, extra: Partial<HttpCase> = {}) =>
    list.push({
      name,
      method: 'GET',
      target: '/api/bash/bash_events/',
      headers: { 'Content-Type': 'application/json' },
      body,
      ...extra,
    });
  for (const body of [
    'not json',
    '[',
    '{}',
    '[1,2]',
    '["xyz"]',
    `["${'0'.repeat(31)}"]`,
    'null',
    '"x"',
  ]) {
    batch(`body ${body}`, body, { status: 422 });
  }
  batch('101 ids', JSON.stringify(Array.from({ length: 101 }, () => ZERO_ID)), { status: 422 });
  batch('body > 1 MiB', JSON.stringify(Array.from({ length: 40_000 }, () => ZERO_ID)), {
    status: 413,
  });
  batch('invalid UTF-8', Buffer.from([0x5b, 0x22, 0xff, 0xfe, 0x22, 0x5d]), { status: 422 });
  list.push({
    name: 'junk JSON',
    method: 'DELETE',
    target: '/api/bash/bash_events',
    headers: { 'Content-Type': 'application/json' },
    body: '{',
  });

  // Unknown routes.
  for (const target of [
    '/nope',
    '/api/nope',
    '/api/bash/bash_events/search/extra',
    '/API/bash/bash_events/search',
    '/api/bash/..%2Ffile/download?path=%2Fetc%2Fpasswd',
    '/%zz',
    '/api/%zz',
    '/api/bash/bash_events/%zz',
    '/alive%00',
    `/${'x'.repeat(8000)}`,
  ]) {
    list.push({ name: 'unknown route', method: 'GET', target });
    list.push({ name: 'unknown route, no key', method: 'GET', target, auth: false });
  }
  return { list, uncovered };
}

/** Bytes that are no HTTP request, or a broken one, written straight to a connection. */
function rawCases(): RawCase[] {
  const get = 'GET /alive HTTP/1.1\r\nHost: x\r\n';
  return [
    { name: 'text garbage', data: 'garbage\r\n\r\n' },
    {
      name: 'binary garbage',
      data: Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919) % 256)),
    },
    { name: 'TLS ClientHello', data: Buffer.from('16030100a5010000a10303', 'hex') },
    { name: 'HTTP/2 preface', data: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' },
    { name: 'HTTP/9.9', data: 'GET /alive HTTP/9.9\r\nHost: x\r\n\r\n' },
    { name: 'unknown method', data: 'FOO /alive HTTP/1.1\r\nHost: x\r\n\r\n' },
    { name: 'lowercase method', data: 'get /alive HTTP/1.1\r\nHost: x\r\n\r\n' },
    { name: 'NUL in the request line', data: 'GET /alive\u0000 HTTP/1.1\r\nHost: x\r\n\r\n' },
    { name: 'no Host header', data: 'GET /alive HTTP/1.1\r\n\r\n' },
    { name: 'header without colon', data: `${get}Broken header\r\n\r\n` },
    { name: 'headers over 16 KiB', data: `${get}X-Big: ${'b'.repeat(20 * 1024)}\r\n\r\n` },
    {
      name: 'Content-Length abc',
      data: `POST /api/bash/start_bash_command HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`,
    },
    {
      name: 'Content-Length -1',
      data: `POST /api/bash/start_bash_command HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n`,
    },
    {
      name: 'two Content-Lengths',
      data: `POST /api/bash/start_bash_command HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx`,
    },
    {
      name: 'Transfer-Encoding and Content-Length',
      data: `POST /api/bash/start_bash_command HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    },
    {
      name: 'bad chunk size',
      data: `POST /api/bash/start_bash_command HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    },
    { name: 'obsolete line folding', data: `${get}X-A: a\r\n  folded\r\n\r\n` },
    { name: 'bare LF line ends', data: 'GET /alive HTTP/1.1\nHost: x\n\n' },
  ];
}

/** Frames that break RFC 6455, each of which must close the connection. */
function invalidFrames(): [string, Buffer][] {
  const text = Buffer.from('{"type":"auth","session_api_key":"x"}');
  return [
    ['unmasked', encodeFrame({ opcode: 1, payload: text, mask: false })],
    ['reserved opcode 3', encodeFrame({ opcode: 3, payload: text })],
    ['reserved opcode 11', encodeFrame({ opcode: 11 })],
    ['RSV1 without extension', encodeFrame({ opcode: 1, payload: text, rsv: 4 })],
    ['RSV2', encodeFrame({ opcode: 1, payload: text, rsv: 2 })],
    ['invalid UTF-8 text', encodeFrame({ opcode: 1, payload: Buffer.from([0xff, 0xfe, 0xfd]) })],
    ['continuation first', encodeFrame({ opcode: 0, payload: text })],
    ['fragmented ping', encodeFrame({ opcode: 9, fin: false, payload: Buffer.from('x') })],
    ['ping over 125 bytes', encodeFrame({ opcode: 9, payload: Buffer.alloc(200) })],
    ['close code 999', encodeFrame({ opcode: 8, payload: Buffer.from([0x03, 0xe7]) })],
    ['close with 1 byte', encodeFrame({ opcode: 8, payload: Buffer.from([0x03]) })],
    ['length 2^63', encodeFrame({ opcode: 2, announcedLength: 2n ** 63n })],
    ['length 17 MiB', encodeFrame({ opcode: 2, announcedLength: 17n * 1024n * 1024n })],
  ];
}

/** Frames an authenticated exec client may send by mistake: [name, frame, field the error names]. */
function junkExecFrames(): [string, unknown, string | undefined][] {
  const manyVariables = Object.fromEntries(
    Array.from({ length: MAX_ENV_VARIABLES + 1 }, (_, index) => [`V${index}`, '1']),
  );
  const value = 'x'.repeat(64 * 1024);
  const largeEnv = Object.fromEntries(
    Array.from({ length: Math.ceil(MAX_ENV_BYTES / value.length) + 1 }, (_, index) => [
      `V${index}`,
      value,
    ]),
  );
  const start = (extra: Record<string, unknown>) => ({ type: 'start', command: 'true', ...extra });
  return [
    ['not JSON', 'not json', undefined],
    ['invalid UTF-8', Buffer.from([0xff, 0xfe]), undefined],
    ['an array', '[]', undefined],
    ['null', 'null', undefined],
    ['a number', '42', undefined],
    ['no type', '{}', undefined],
    ['unknown type', { type: 'nope' }, undefined],
    ['command 1', start({ command: 1 }), 'command'],
    ['empty command', start({ command: '' }), 'command'],
    ['NUL in command', start({ command: 'a\u0000b' }), 'command'],
    ['command over the limit', start({ command: 'x'.repeat(MAX_COMMAND_BYTES + 1) }), 'command'],
    ['NUL in cwd', start({ cwd: 'a\u0000b' }), 'cwd'],
    ['cwd over 4096 bytes', start({ cwd: `/${'d'.repeat(5000)}` }), 'cwd'],
    ['negative timeout', start({ timeout: -1 }), 'timeout'],
    ['huge timeout', start({ timeout: 1e300 }), 'timeout'],
    [`${MAX_ENV_VARIABLES + 1} variables`, start({ env: manyVariables }), 'env'],
    ['env over 256 KiB', start({ env: largeEnv }), 'env'],
    ['variable name with =', start({ env: { 'A=B': 'x' } }), 'env.A=B'],
    ['NUL in a value', start({ env: { V: 'a\u0000b' } }), 'env.V'],
    ['a number as value', start({ env: { V: 1 } }), 'env'],
    ['env as a list', start({ env: ['A=B'] }), 'env'],
    ['request_id over 200', start({ request_id: 'r'.repeat(201) }), 'request_id'],
    ['stdin to a bad id', { type: 'stdin', command_id: 'xyz', data: 'x' }, 'command_id'],
    ['stdin to an unknown id', { type: 'stdin', command_id: ZERO_ID, data: 'x' }, undefined],
    ['stdin data 1', { type: 'stdin', command_id: ZERO_ID, data: 1 }, 'data'],
    [
      'stdin encoding rot13',
      { type: 'stdin', command_id: ZERO_ID, data: 'x', encoding: 'rot13' },
      'encoding',
    ],
    ['signal SIGSTOP', { type: 'signal', command_id: ZERO_ID, signal: 'SIGSTOP' }, 'signal'],
    [
      'attach after_order -2',
      { type: 'attach', command_id: ZERO_ID, after_order: -2 },
      'after_order',
    ],
    [
      'attach after_order 1.5',
      { type: 'attach', command_id: ZERO_ID, after_order: 1.5 },
      'after_order',
    ],
    ['attach unknown id', { type: 'attach', command_id: ZERO_ID, after_order: -1 }, undefined],
  ];
}

/** Runs `work` over `items` with at most `width` at once. */
async function runPool<T>(items: T[], width: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

function short(text: string): string {
  return text.length > 60 ? `${text.slice(0, 40)}...(${text.length} chars)` : text;
}
