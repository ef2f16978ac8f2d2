import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import { call, downloadTarget, multipartBody, openSocket, uploadTarget } from './support/http.js';
import { attempt, describeOutcome, type Outcome } from './support/outcome.js';
import {
  AUTH,
  createScratch,
  partFiles,
  type Scratch,
  ServerProcess,
  waitFor,
} from './support/server-process.js';
import { WsClient } from './support/websocket.js';

const COMMANDS = 300;
const UPLOADS = 40;
const DOWNLOADS = 40;
const PAYLOAD_BYTES = 1024 * 1024;
const OPEN_FILES = 256;
/** The server's default `--max-connections` under `ulimit -n 256`: (256 - 64) / 2. */
const DERIVED_MAX_CONNECTIONS = 96;
/** Idle keep-alive connections of the flood. */
const FLOOD = 400;

/** The command answer the contract allows under exhaustion; a message when it is not one. */
function commandProblem(outcome: Outcome): string | undefined {
  if (outcome.kind === 'refused') return undefined;
  if (outcome.kind === 'failed') return outcome.error;
  const { status, headers, json } = outcome.answer;
  const detail = String((json as { detail?: unknown } | undefined)?.detail ?? '');
  if (status === 200) {
    const output = json as { stdout?: string; exit_code?: number };
    return output.stdout === 'hi\n' && output.exit_code === 0
      ? undefined
      : 'a 200 without the output';
  }
  if (status === 503) {
    if (headers['retry-after'] === undefined) return '503 without Retry-After';
    return /retry later$/.test(detail)
      ? undefined
      : '503 whose detail does not end in "retry later"';
  }
  if (status === 429) {
    if (headers['retry-after'] === undefined) return '429 without Retry-After';
    return /too many commands/i.test(detail) ? undefined : '429 without "Too many commands"';
  }
  return 'neither 200, 503 retry later nor 429';
}

/** An upload or download answer the contract allows under exhaustion. */
function transferProblem(outcome: Outcome, ok: (outcome: Outcome) => boolean): string | undefined {
  if (outcome.kind === 'refused') return undefined;
  if (outcome.kind === 'failed') return outcome.error;
  const { status, headers, json } = outcome.answer;
  if (status === 200) return ok(outcome) ? undefined : 'a 200 with the wrong content';
  const detail = String((json as { detail?: unknown } | undefined)?.detail ?? '');
  if (status === 503 && headers['retry-after'] !== undefined && /retry later$/.test(detail)) {
    return undefined;
  }
  return 'neither 200 nor 503 retry later';
}

describe(`descriptor exhaustion (ulimit -n ${OPEN_FILES})`, () => {
  let scratch: Scratch;
  let server: ServerProcess;
  let agent: Agent;
  const figures = new Figures('descriptor exhaustion');

  beforeAll(async () => {
    scratch = await createScratch('descriptors');
    agent = new Agent({ connections: null, connect: { timeout: 30_000 } });
  });
  afterEach(async () => {
    figures.observeRss(server?.peakRss ?? 0);
    await server?.stop();
  });
  afterAll(async () => {
    figures.save();
    await agent?.close();
    await scratch?.remove();
  });

  /** One `execute_bash_command` on a new connection of its own, closed afterwards. */
  async function executeOnce(command: string): Promise<Outcome> {
    const probe = new Agent();
    try {
      return await attempt(`${server.url}/api/bash/execute_bash_command`, {
        dispatcher: probe,
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ command, timeout: 30 }),
      });
    } finally {
      await probe.destroy();
    }
  }

  /** A command that must work once the storm is over (retried while the server recovers). */
  async function expectServing(): Promise<void> {
    let last = '';
    // Its own client, closed afterwards, so it holds no connection to the server.
    const probe = new Agent();
    const recovered = await waitFor(async () => {
      const outcome = await attempt(`${server.url}/api/bash/execute_bash_command`, {
        dispatcher: probe,
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ command: 'echo recovered', timeout: 30 }),
      });
      last = describeOutcome(outcome);
      return (
        outcome.kind === 'answer' && outcome.answer.status === 200 && last.includes('recovered')
      );
    }, 30_000);
    expect(recovered, `a command after the storm: ${last}`).toBe(true);
    expect((await call(`${server.url}/alive`, { dispatcher: probe })).status).toBe(200);
    await probe.destroy();
  }

  it(`answers ${COMMANDS} concurrent commands and ${UPLOADS + DOWNLOADS} transfers, or refuses them cleanly`, async () => {
    const work = scratch.workingDir;
    const payload = randomBytes(PAYLOAD_BYTES);
    writeFileSync(path.join(work, 'payload.bin'), payload);
    server = await ServerProcess.start({
      workingDir: work,
      runtimeDir: scratch.runtimeDir,
      maxOpenFiles: OPEN_FILES,
      flags: ['--max-concurrent-commands', '64'],
    });
    const limit = readFileSync(`/proc/${server.pid}/limits`, 'utf8');
    expect(limit).toMatch(new RegExp(`Max open files\\s+${OPEN_FILES}\\s`));
    // A command, an upload and a download first, so lazily opened descriptors are in the baseline.
    await expectServing();
    const warmUp = multipartBody('warm');
    await call(`${server.url}${uploadTarget(path.join(work, 'warm.txt'))}`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': warmUp.contentType, connection: 'close' },
      body: warmUp.body,
    });
    await call(`${server.url}${downloadTarget(path.join(work, 'warm.txt'))}`, {
      headers: { ...AUTH, connection: 'close' },
    });
    const baseline = await server.settledDescriptors();
    const baselineTargets = server.describeDescriptors();
    // Keep-alive connections, as a busy client holds them: the storm's sockets stay open.
    const options = { dispatcher: agent, timeoutMs: 90_000 };
    const keepAlive = { connection: 'keep-alive' };
    // Fired within about a second, so early commands run while later ones pile up.
    const ramp = (index: number) => new Promise((resolve) => setTimeout(resolve, index * 3));
    const commands = Array.from({ length: COMMANDS }, async (_, index) =>
      ramp(index).then(() =>
        attempt(`${server.url}/api/bash/execute_bash_command`, {
          ...options,
          method: 'POST',
          headers: { ...AUTH, ...keepAlive, 'content-type': 'application/json' },
          body: JSON.stringify({ command: 'sleep 0.5; echo hi', timeout: 60 }),
        }),
      ),
    );
    const content = randomBytes(256 * 1024);
    const uploads = Array.from({ length: UPLOADS }, async (_, index) => {
      const form = multipartBody(content);
      await ramp(index * 7);
      return attempt(`${server.url}${uploadTarget(path.join(work, `up-${index}.bin`))}`, {
        ...options,
        method: 'POST',
        headers: { ...AUTH, ...keepAlive, 'content-type': form.contentType },
        body: form.body,
      });
    });
    const downloads = Array.from({ length: DOWNLOADS }, async (_, index) =>
      ramp(index * 7 + 3).then(() =>
        attempt(`${server.url}${downloadTarget(path.join(work, 'payload.bin'))}`, {
          ...options,
          headers: { ...AUTH, ...keepAlive },
        }),
      ),
    );

    const violations: string[] = [];
    const counts = { ok: 0, '429': 0, '503': 0, refused: 0 };
    const tally = (outcome: Outcome) => {
      if (outcome.kind === 'refused') counts.refused++;
      else if (outcome.kind === 'answer' && outcome.answer.status === 200) counts.ok++;
      else if (outcome.kind === 'answer' && outcome.answer.status === 429) counts['429']++;
      else if (outcome.kind === 'answer' && outcome.answer.status === 503) counts['503']++;
    };
    const judge = (what: string, outcome: Outcome, problem: string | undefined) => {
      figures.tried++;
      tally(outcome);
      if (problem !== undefined) {
        figures.escapes++;
        violations.push(`${what}: ${problem}; got ${describeOutcome(outcome)}`);
      } else if (outcome.kind !== 'answer' || outcome.answer.status !== 200) figures.rejected++;
    };
    for (const outcome of await Promise.all(commands)) {
      judge(
        'POST /api/bash/execute_bash_command {"command":"sleep 0.5; echo hi"}',
        outcome,
        commandProblem(outcome),
      );
    }
    (await Promise.all(uploads)).forEach((outcome, index) => {
      const target = path.join(work, `up-${index}.bin`);
      const problem = transferProblem(outcome, () => readFileSync(target).equals(content));
      judge(`POST ${uploadTarget(target)}`, outcome, problem);
    });
    for (const outcome of await Promise.all(downloads)) {
      const problem = transferProblem(
        outcome,
        (done) => done.kind === 'answer' && Buffer.from(done.answer.text, 'latin1').length > 0,
      );
      judge('GET /api/file/download?path=payload.bin', outcome, problem);
    }
    figures.note = `ok ${counts.ok}, 429 ${counts['429']}, 503 ${counts['503']}, refused ${counts.refused}`;

    expect(server.exit, `the server exited: ${server.stderr}`).toBeUndefined();
    expect(violations).toEqual([]);
    // The storm's client lets go of its keep-alive connections (they would hold the server's
    // descriptors for its keep-alive timeout), then a normal command must work.
    await agent.destroy();
    agent = new Agent({ connections: null });
    await expectServing();
    expect(partFiles(work)).toEqual([]);
    // Every descriptor the storm took is given back.
    await waitFor(() => server.openDescriptors() <= baseline, 15_000);
    const now = await server.settledDescriptors();
    if (now > baseline) figures.note += `; ${now - baseline} descriptors kept (http)`;
    expect(
      now,
      `descriptors before: ${baselineTargets}; after: ${server.describeDescriptors()}`,
    ).toBeLessThanOrEqual(baseline);
  });

  it(`answers ${COMMANDS} commands started at once over one exec socket, or refuses them cleanly`, async () => {
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      maxOpenFiles: OPEN_FILES,
    });
    await expectServing();
    const baseline = await server.settledDescriptors();
    const baselineTargets = server.describeDescriptors();
    const client = await WsClient.connect(server.url, '/sockets/exec');
    for (let index = 0; index < COMMANDS; index++) {
      client.send({
        type: 'start',
        command: 'sleep 0.5; echo hi',
        request_id: `r${index}`,
        timeout: 60,
      });
    }
    const violations: string[] = [];
    const counts = { exited: 0, spawnError: 0, tooMany: 0 };
    for (let index = 0; index < COMMANDS; index++) {
      figures.tried++;
      const requestId = `r${index}`;
      const reply = await client.waitFor(
        (frame) =>
          frame.request_id === requestId && (frame.type === 'started' || frame.type === 'error'),
        60_000,
      );
      if (reply?.type === 'error') {
        const detail = String(reply.detail);
        if (reply.code === 'SPAWN_ERROR' && /retry later$/.test(detail)) counts.spawnError++;
        else if (reply.code === 'TOO_MANY_COMMANDS') counts.tooMany++;
        else {
          figures.escapes++;
          violations.push(`start ${requestId}: ${JSON.stringify(reply)}`);
          continue;
        }
        figures.rejected++;
        continue;
      }
      const exit = reply
        ? await client.waitFor(
            (frame) => frame.type === 'exit' && frame.command_id === reply.command_id,
            60_000,
          )
        : undefined;
      if (exit?.exit_code === 0) counts.exited++;
      else {
        figures.escapes++;
        violations.push(
          `start ${requestId}: ${JSON.stringify(reply)} then ${JSON.stringify(exit)}`,
        );
      }
    }
    client.close();
    figures.note = `${figures.note ?? ''}; exec: ran ${counts.exited}, SPAWN_ERROR ${counts.spawnError}, TOO_MANY ${counts.tooMany}`;
    expect(server.exit, `the server exited: ${server.stderr}`).toBeUndefined();
    expect(violations).toEqual([]);
    await expectServing();
    await waitFor(() => server.openDescriptors() <= baseline, 15_000);
    const now = await server.settledDescriptors();
    if (now > baseline) figures.note += `; ${now - baseline} descriptors kept (exec)`;
    expect(
      now,
      `descriptors before: ${baselineTargets}; after: ${server.describeDescriptors()}`,
    ).toBeLessThanOrEqual(baseline);
  });

  it('answers 429 Too many commands with Retry-After over --max-concurrent-commands', async () => {
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      maxOpenFiles: OPEN_FILES,
      flags: ['--max-concurrent-commands', '10'],
    });
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, () =>
        attempt(`${server.url}/api/bash/execute_bash_command`, {
          dispatcher: agent,
          timeoutMs: 60_000,
          method: 'POST',
          headers: { ...AUTH, connection: 'keep-alive', 'content-type': 'application/json' },
          body: JSON.stringify({ command: 'sleep 1; echo hi', timeout: 60 }),
        }),
      ),
    );
    const problems = outcomes.flatMap((outcome) => {
      figures.tried++;
      const problem = commandProblem(outcome);
      if (problem) figures.escapes++;
      else if (outcome.kind !== 'answer' || outcome.answer.status !== 200) figures.rejected++;
      return problem ? [`${problem}: ${describeOutcome(outcome)}`] : [];
    });
    expect(problems).toEqual([]);
    const limited = outcomes.filter(
      (outcome) => outcome.kind === 'answer' && outcome.answer.status === 429,
    );
    expect(limited.length).toBeGreaterThan(0);
    await agent.destroy();
    agent = new Agent({ connections: null });
    await expectServing();
  });

  it('stays up under 1000 idle unauthenticated connections and serves once they go', async () => {
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      maxOpenFiles: OPEN_FILES,
    });
    const sockets = await openIdleSockets(server.port, 1000);
    figures.tried += sockets.tried;
    figures.rejected += sockets.refused + sockets.closedByServer();
    // The server is busy holding what it could accept, and alive.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(server.exit, `the server exited: ${server.stderr}`).toBeUndefined();
    sockets.destroyAll();
    await expectServing();
  });

  it(`serves a command at once while a flood of ${FLOOD} idle keep-alive connections stays open`, async () => {
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      maxOpenFiles: OPEN_FILES,
    });
    await expectServing();
    // Each flood connection makes one keep-alive request, then holds its socket idle.
    const flood = await openKeepAliveFlood(server.port, FLOOD);
    figures.tried += FLOOD;
    figures.rejected += FLOOD - flood.answered;
    // The default cap ((256 - 64) / 2 = 96) shed the oldest idle ones; the newest are held.
    const settled = await waitFor(() => flood.open() <= DERIVED_MAX_CONNECTIONS, 10_000);
    expect(settled, `${flood.open()} flood connections open`).toBe(true);
    const held = flood.open();
    expect(held).toBeGreaterThan(DERIVED_MAX_CONNECTIONS / 2);
    expect(server.openDescriptors()).toBeLessThan(OPEN_FILES - 32);

    // One command on a new connection, first try: it sheds one idle flood connection to get in.
    const outcome = await executeOnce('echo during-flood');
    expect(describeOutcome(outcome)).toMatch(/^200 .*during-flood/);
    // The flood's other sockets are still open.
    expect(flood.open()).toBeGreaterThanOrEqual(held - 1);
    figures.note = `${figures.note ?? ''}; flood: ${held} of ${FLOOD} held, command served at once`;
    expect(server.exit, `the server exited: ${server.stderr}`).toBeUndefined();
    flood.destroyAll();
    await expectServing();
  });

  it(`with --max-connections over what ulimit -n allows, sheds idle connections once descriptors run out`, async () => {
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      maxOpenFiles: OPEN_FILES,
      flags: ['--max-connections', '1000'],
    });
    await expectServing();
    const flood = await openKeepAliveFlood(server.port, FLOOD);
    figures.tried += FLOOD;
    figures.rejected += FLOOD - flood.answered;
    // The flag wins over the derived 96: the flood holds far more, up to the descriptor limit.
    const heldAtFirst = flood.open();
    expect(heldAtFirst).toBeGreaterThan(2 * DERIVED_MAX_CONNECTIONS);
    // Accepts failed with EMFILE meanwhile; the descriptor watch sheds the oldest idle ones,
    // and a command gets through while the rest of the flood is still open.
    let last = '';
    const served = await waitFor(async () => {
      const outcome = await executeOnce('echo after-shedding');
      last = describeOutcome(outcome);
      return /^200 .*after-shedding/.test(last);
    }, 30_000);
    expect(served, `a command during the flood: ${last}`).toBe(true);
    const stillHeld = flood.open();
    expect(stillHeld).toBeGreaterThan(2 * DERIVED_MAX_CONNECTIONS);
    figures.note = `${figures.note ?? ''}; --max-connections 1000: ${heldAtFirst} held, ${stillHeld} still open when a command was served`;
    expect(server.exit, `the server exited: ${server.stderr}`).toBeUndefined();
    flood.destroyAll();
    await expectServing();
  });

  it('closes connections beyond --max-connections at once', async () => {
    const maxConnections = 50;
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      flags: ['--max-connections', String(maxConnections)],
    });
    const sockets = await openIdleSockets(server.port, 300);
    const held = await waitFor(() => sockets.open() <= maxConnections, 10_000);
    figures.tried += sockets.tried;
    figures.rejected += sockets.refused + sockets.closedByServer();
    expect(held, `${sockets.open()} of 300 idle connections still open`).toBe(true);
    expect(sockets.open()).toBeGreaterThan(0);
    expect(server.exit).toBeUndefined();
    sockets.destroyAll();
    await expectServing();
  });
});

/**
 * `count` keep-alive connections (50 at a time), each answered one `GET /alive` and then held
 * idle, as a client pool keeps them; and what became of them.
 */
async function openKeepAliveFlood(port: number, count: number) {
  const sockets: Socket[] = [];
  let answered = 0;
  const keepAlive = async (): Promise<void> => {
    const socket = await openSocket(port).catch(() => undefined);
    if (!socket) return;
    socket.on('error', () => {});
    sockets.push(socket);
    const ok = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      socket.once('data', (chunk: Buffer) => {
        clearTimeout(timer);
        resolve(chunk.toString().startsWith('HTTP/1.1 200'));
      });
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(false);
      });
      socket.write('GET /alive HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    });
    if (ok) answered++;
  };
  for (let index = 0; index < count; index += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - index) }, keepAlive));
  }
  return {
    answered,
    open: () => sockets.filter((socket) => !socket.destroyed && !socket.readableEnded).length,
    destroyAll: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** Idle connections (nothing sent, no key) and what became of them. */
async function openIdleSockets(port: number, count: number) {
  const sockets: Socket[] = [];
  let refused = 0;
  let closed = 0;
  for (let index = 0; index < count; index += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - index) }, () =>
        Promise.race([
          openSocket(port),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 5000)),
        ]).catch(() => undefined),
      ),
    );
    for (const socket of batch) {
      if (!socket) {
        refused++;
        continue;
      }
      socket.on('error', () => {});
      socket.once('close', () => closed++);
      sockets.push(socket);
    }
  }
  return {
    tried: count,
    refused,
    closedByServer: () => closed,
    open: () => sockets.filter((socket) => !socket.destroyed && !socket.readableEnded).length,
    destroyAll: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}
