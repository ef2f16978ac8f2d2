import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSocketClient } from '../test-support/test-socket-client.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

const HEX_ID = expect.stringMatching(/^[0-9a-f]{32}$/);
const KEY = 'exec-secret';

type Frame = Record<string, unknown>;

/** Frames of one command after `started`, up to and including `exit`. */
async function untilExit(client: TestSocketClient, commandId: string): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (;;) {
    const frame = await client.next((f) => f.command_id === commandId);
    frames.push(frame);
    if (frame.type === 'exit' || frame.type === 'error') return frames;
  }
}

function textOf(frames: Frame[], stream: 'stdout' | 'stderr'): string {
  return frames
    .filter((f) => f.type === 'output' && f.stream === stream)
    .map((f) => f.data)
    .join('');
}

/** Starts a command and returns its id (after the `started` frame). */
async function start(client: TestSocketClient, frame: Frame): Promise<string> {
  const requestId = `req-${Math.random()}`;
  client.send({ type: 'start', request_id: requestId, ...frame });
  const started = await client.next((f) => f.request_id === requestId);
  expect(started).toEqual({
    type: 'started',
    command_id: HEX_ID,
    request_id: requestId,
    pid: expect.any(Number),
  });
  return started.command_id as string;
}

describe('/sockets/exec', () => {
  let server: TestServer;
  let client: TestSocketClient;
  beforeAll(async () => {
    server = await startTestServer({ sessionApiKeys: [KEY] });
    client = await TestSocketClient.open(`${server.url}/sockets/exec`);
    client.send({ type: 'auth', session_api_key: KEY });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('streams output frames as produced and ends with an exit frame', async () => {
    const id = await start(client, {
      command: 'echo first; while [ ! -e go-exec ]; do sleep 0.01; done; echo second >&2; exit 3',
    });
    // The first output arrives while the command is blocked on the file.
    expect(await client.next((f) => f.command_id === id)).toEqual({
      type: 'output',
      command_id: id,
      order: 0,
      stream: 'stdout',
      data: 'first\n',
    });
    await writeFile(path.join(server.dir, 'go-exec'), '');
    const rest = await untilExit(client, id);
    expect(rest).toEqual([
      { type: 'output', command_id: id, order: 1, stream: 'stderr', data: 'second\n' },
      {
        type: 'exit',
        command_id: id,
        order: 2,
        exit_code: 3,
        timeout_occurred: false,
        duration_ms: expect.any(Number),
      },
    ]);
  });

  it('says why a command was ended (our termination_reason), and nothing for an exit', async () => {
    const killed = await start(client, { command: 'kill -TERM $$' });
    expect((await untilExit(client, killed)).at(-1)).toMatchObject({
      type: 'exit',
      exit_code: 143,
      termination_reason: 'signal',
    });
    const limited = await start(client, { command: 'kill -XCPU $$' });
    expect((await untilExit(client, limited)).at(-1)).toMatchObject({
      exit_code: 152,
      termination_reason: 'limit',
    });
    const exited = await start(client, { command: 'exit 137' });
    const last = (await untilExit(client, exited)).at(-1);
    expect(last).toMatchObject({ exit_code: 137 });
    expect(last).not.toHaveProperty('termination_reason');
  });

  it('keeps termination_reason in the bash event log: a replay after a restart has it', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'exec-state-'));
    try {
      const before = await startTestServer({ sessionApiKeys: [KEY], stateDir });
      const first = await TestSocketClient.open(`${before.url}/sockets/exec`, {
        'X-Session-API-Key': KEY,
      });
      const id = await start(first, { command: 'kill -TERM $$' });
      const frames = await untilExit(first, id);
      await first.close();
      await before.close();
      const after = await startTestServer({ sessionApiKeys: [KEY], stateDir });
      const second = await TestSocketClient.open(`${after.url}/sockets/exec`, {
        'X-Session-API-Key': KEY,
      });
      try {
        second.send({ type: 'attach', command_id: id, after_order: -1 });
        const replay = await untilExit(second, id);
        expect(replay.at(-1)).toMatchObject({ type: 'exit', termination_reason: 'signal' });
        expect(replay).toEqual(frames);
      } finally {
        await second.close();
        await after.close();
      }
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });

  it('round-trips stdin, text and base64, until close_stdin', async () => {
    const id = await start(client, { command: 'cat; echo "cat done"', stdin: true });
    client.send({ type: 'stdin', command_id: id, data: 'hello\n' });
    expect(await client.next((f) => f.command_id === id)).toMatchObject({ data: 'hello\n' });
    client.send({
      type: 'stdin',
      command_id: id,
      data: Buffer.from('wörld\n').toString('base64'),
      encoding: 'base64',
    });
    expect(await client.next((f) => f.command_id === id)).toMatchObject({ data: 'wörld\n' });
    client.send({ type: 'close_stdin', command_id: id });
    const rest = await untilExit(client, id);
    expect(textOf(rest, 'stdout')).toBe('cat done\n');
    expect(rest.at(-1)).toMatchObject({ type: 'exit', exit_code: 0 });
  });

  it('refuses stdin for a command started without it, and for unknown or finished ones', async () => {
    const id = await start(client, {
      command: 'while [ ! -e go-stdin ]; do sleep 0.01; done; read -r line; echo "read=$?"',
    });
    client.send({ type: 'stdin', command_id: id, data: 'ignored\n' });
    expect(await client.next((f) => f.command_id === id)).toEqual({
      type: 'error',
      command_id: id,
      request_id: null,
      code: 'STDIN_CLOSED',
      detail: 'the command was not started with stdin: true',
    });
    await writeFile(path.join(server.dir, 'go-stdin'), '');
    // Its stdin was at EOF from the start.
    const rest = await untilExit(client, id);
    expect(textOf(rest, 'stdout')).toBe('read=1\n');
    client.send({ type: 'signal', command_id: id, signal: 'SIGTERM' });
    expect(await client.next((f) => f.command_id === id)).toMatchObject({
      type: 'error',
      code: 'NOT_RUNNING',
    });
    const unknown = '0'.repeat(32);
    client.send({ type: 'close_stdin', command_id: unknown });
    expect(await client.next((f) => f.command_id === unknown)).toMatchObject({
      type: 'error',
      code: 'UNKNOWN_COMMAND',
    });
  });

  it('sends signals to the process group', async () => {
    const id = await start(client, {
      command: "trap 'echo got INT; exit 5' INT; echo ready; while :; do sleep 0.05; done",
    });
    expect(await client.next((f) => f.command_id === id)).toMatchObject({ data: 'ready\n' });
    client.send({ type: 'signal', command_id: id, signal: 'SIGINT' });
    const rest = await untilExit(client, id);
    expect(textOf(rest, 'stdout')).toBe('got INT\n');
    expect(rest.at(-1)).toMatchObject({ type: 'exit', exit_code: 5, timeout_occurred: false });
  });

  it('reports a timeout in the exit frame and passes env', async () => {
    const id = await start(client, {
      command: 'echo "$GREETING"; sleep 30',
      timeout: 0.3,
      env: { GREETING: 'hi there' },
    });
    const frames = await untilExit(client, id);
    expect(textOf(frames, 'stdout')).toBe('hi there\n');
    expect(frames.at(-1)).toMatchObject({ type: 'exit', exit_code: -1, timeout_occurred: true });
  });

  it('runs several commands at once on one socket, each with its own frames', async () => {
    const ids = await Promise.all(
      Array.from({ length: 10 }, (_unused, index) =>
        start(client, { command: `for i in 1 2 3; do echo c${index}-$i; sleep 0.03; done` }),
      ),
    );
    const results = await Promise.all(ids.map((id) => untilExit(client, id)));
    results.forEach((frames, index) => {
      expect(textOf(frames, 'stdout')).toBe(`c${index}-1\nc${index}-2\nc${index}-3\n`);
      expect(frames.map((f) => f.order)).toEqual(frames.map((_f, order) => order));
    });
  });

  it('keeps a command running when its client disconnects; attach resumes exactly once', async () => {
    const first = await TestSocketClient.open(`${server.url}/sockets/exec`, {
      'X-Session-API-Key': KEY,
    });
    const script = [
      'echo part-1',
      'while [ ! -e go-1 ]; do sleep 0.01; done',
      'echo part-2; echo warn-2 >&2',
      'while [ ! -e go-2 ]; do sleep 0.01; done',
      'echo part-3',
    ].join('; ');
    const id = await start(first, { command: script });
    const seen = [await first.next((f) => f.command_id === id)];
    expect(seen[0]).toMatchObject({ order: 0, data: 'part-1\n' });
    await first.close();
    // Output produced while nobody listens is kept.
    await writeFile(path.join(server.dir, 'go-1'), '');
    const second = await TestSocketClient.open(`${server.url}/sockets/exec`);
    second.send({ type: 'auth', session_api_key: KEY });
    try {
      second.send({ type: 'attach', command_id: id, after_order: 0 });
      const resumed = await second.next((f) => f.command_id === id);
      expect(resumed.order).toBe(1);
      await writeFile(path.join(server.dir, 'go-2'), '');
      const rest = [resumed, ...(await untilExit(second, id))];
      const all = [...seen, ...rest];
      expect(all.map((f) => f.order)).toEqual(all.map((_f, order) => order));
      expect(textOf(all, 'stdout')).toBe('part-1\npart-2\npart-3\n');
      expect(textOf(all, 'stderr')).toBe('warn-2\n');
      expect(all.at(-1)).toMatchObject({ type: 'exit', exit_code: 0 });
      // A full replay of the finished command gives the same frames.
      second.send({ type: 'attach', command_id: id, after_order: -1 });
      const replay = await untilExit(second, id);
      expect(replay).toEqual(all);
    } finally {
      await second.close();
    }
  });

  it('answers invalid frames with INVALID_FRAME naming the field and stays open', async () => {
    const cases: [unknown, string][] = [
      ['{oops', 'not valid JSON'],
      [{ type: 'start' }, 'command: Field required'],
      [{ type: 'launch', command: 'true' }, 'type:'],
      [{ type: 'signal', command_id: '0'.repeat(32), signal: 'SIGSTOP' }, 'signal:'],
      [{ type: 'attach', command_id: 'nope', after_order: 0 }, 'command_id:'],
      [{ type: 'start', command: 'true', timeout: 0 }, 'timeout: Input should be greater than 0'],
      [{ type: 'start', command: 'true', env: { 'A=B': 'x' } }, 'env.A=B'],
      [{ type: 'stdin', command_id: '0'.repeat(32), data: '%%%', encoding: 'base64' }, 'data:'],
      [42, 'frame:'],
    ];
    for (const [frame, detail] of cases) {
      client.send(frame);
      const error = await client.next((f) => f.type === 'error');
      expect(error).toMatchObject({ code: 'INVALID_FRAME' });
      expect(error.detail).toContain(detail);
    }
    client.send({ type: 'start', request_id: 'bad-cwd', command: 'true', cwd: 'missing-dir' });
    expect(await client.next((f) => f.request_id === 'bad-cwd')).toEqual({
      type: 'error',
      command_id: null,
      request_id: 'bad-cwd',
      code: 'INVALID_CWD',
      field: 'cwd',
      detail: 'cwd does not exist: missing-dir',
    });
    client.send({ type: 'attach', command_id: 'f'.repeat(32), after_order: -1 });
    expect(await client.next((f) => f.command_id === 'f'.repeat(32))).toMatchObject({
      code: 'UNKNOWN_COMMAND',
    });
    const id = await start(client, { command: 'echo alive' });
    expect(textOf(await untilExit(client, id), 'stdout')).toBe('alive\n');
  });

  it('names the field a confined server refuses in a start', async () => {
    const confined = await startTestServer({ confineToWorkingDir: true });
    const socket = await TestSocketClient.open(`${confined.url}/sockets/exec`);
    try {
      socket.send({ type: 'start', request_id: 'outside', command: 'true', cwd: '/' });
      expect(await socket.next((f) => f.request_id === 'outside')).toEqual({
        type: 'error',
        command_id: null,
        request_id: 'outside',
        code: 'FORBIDDEN',
        field: 'cwd',
        detail: expect.stringMatching(/^cwd is outside the working directory/),
      });
    } finally {
      await socket.close();
      await confined.close();
    }
  });

  it('closes with 4001 without a valid first auth frame', async () => {
    const anonymous = await TestSocketClient.open(`${server.url}/sockets/exec`);
    anonymous.send({ type: 'start', command: 'touch should-not-run' });
    expect(await anonymous.closed).toEqual({ code: 4001, reason: 'Authentication failed' });
    const wrong = await TestSocketClient.open(`${server.url}/sockets/exec`);
    wrong.send({ type: 'auth', session_api_key: 'nope' });
    expect(await wrong.closed).toEqual({ code: 4001, reason: 'Authentication failed' });
    await expect(
      TestSocketClient.open(`${server.url}/sockets/exec?session_api_key=nope`),
    ).rejects.toThrow('HTTP 403');
  });
});

describe('/sockets/exec history limits and registration', () => {
  it('reports HISTORY_EXPIRED for events evicted by the size bound', async () => {
    const server = await startTestServer({ bashEventMaxBytes: 200_000 });
    const client = await TestSocketClient.open(`${server.url}/sockets/exec`);
    try {
      const small = await start(client, { command: 'echo small' });
      await untilExit(client, small);
      // 1 MiB of output: the finished command goes first, then the big one's oldest events.
      const big = await start(client, { command: "head -c 1048576 /dev/zero | tr '\\0' b" });
      const frames = await untilExit(client, big);
      expect(frames.at(-1)).toMatchObject({ type: 'exit', exit_code: 0 });
      client.send({ type: 'attach', command_id: small, after_order: -1 });
      expect(await client.next((f) => f.command_id === small)).toMatchObject({
        type: 'error',
        code: 'HISTORY_EXPIRED',
      });
      client.send({ type: 'attach', command_id: big, after_order: -1 });
      expect(await client.next((f) => f.command_id === big)).toMatchObject({
        type: 'error',
        code: 'HISTORY_EXPIRED',
      });
      // The newest events are still there.
      const last = frames.at(-1)?.order as number;
      client.send({ type: 'attach', command_id: big, after_order: last - 1 });
      expect(await client.next((f) => f.command_id === big)).toMatchObject({
        type: 'exit',
        order: last,
      });
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('is not served when extensions are off', async () => {
    const server = await startTestServer({ extensions: false });
    try {
      await expect(TestSocketClient.open(`${server.url}/sockets/exec`)).rejects.toThrow('HTTP 404');
    } finally {
      await server.close();
    }
  });
});
