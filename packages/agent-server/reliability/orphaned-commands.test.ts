import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import { call } from './support/http.js';
import { attempt } from './support/outcome.js';
import {
  AUTH,
  createScratch,
  type Scratch,
  ServerProcess,
  waitFor,
} from './support/server-process.js';
import { WsClient } from './support/websocket.js';

/** `--orphaned-command-grace-seconds` of the server under test. */
const GRACE_SECONDS = 1;

/** Upper bound for "the orphan was ended at all": grace, SIGTERM→SIGKILL grace, margin. */
const ENDED_WITHIN_MS = (GRACE_SECONDS + 1 + 8) * 1000;

interface OutputEvent {
  order: number;
  exit_code: number | null;
  stdout: string | null;
  stderr: string | null;
}

describe('orphaned commands', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  const figures = new Figures('orphaned commands');

  beforeAll(async () => {
    scratch = await createScratch('orphans');
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      flags: ['--orphaned-command-grace-seconds', String(GRACE_SECONDS)],
    });
  });
  afterAll(async () => {
    figures.observeRss(server?.peakRss ?? 0);
    figures.save();
    await server?.stop();
    await scratch?.remove();
  });

  /** The command's final event (the output with an exit code), if it has one yet. */
  async function finalEvent(commandId: string): Promise<OutputEvent | undefined> {
    const page = await call(
      `${server.url}/api/bash/bash_events/search?kind__eq=BashOutput&command_id__eq=${commandId}&sort_order=TIMESTAMP_DESC&limit=5`,
      { headers: AUTH },
    );
    return (page.json as { items: OutputEvent[] }).items.find((item) => item.exit_code !== null);
  }

  /** Waits for the final event; undefined when none came within `timeoutMs`. */
  async function awaitFinal(
    commandId: string,
    timeoutMs: number,
  ): Promise<OutputEvent | undefined> {
    let final: OutputEvent | undefined;
    await waitFor(async () => {
      final = await finalEvent(commandId);
      return final !== undefined;
    }, timeoutMs);
    return final;
  }

  /** Starts `sleep 1000` over a fresh exec socket; resolves with the socket and the command id. */
  async function startOverExec(detached: boolean) {
    const client = await WsClient.connect(server.url, '/sockets/exec');
    client.send({
      type: 'start',
      command: 'sleep 1000',
      request_id: 'r',
      ...(detached && { detached: true }),
    });
    const started = await client.waitFor((frame) => frame.type === 'started');
    expect(started, JSON.stringify(client.frames)).toBeDefined();
    return { client, commandId: String(started?.command_id) };
  }

  function count(ended: boolean): void {
    figures.tried++;
    if (ended) figures.rejected++;
    else figures.escapes++;
  }

  for (const [how, terminate] of [
    ['closed', false],
    ['dropped', true],
  ] as const) {
    it(`ends a command whose exec socket was ${how}, after the grace`, async () => {
      const { client, commandId } = await startOverExec(false);
      client.close(terminate);
      await client.closed;
      const final = await awaitFinal(commandId, ENDED_WITHIN_MS);
      count(final !== undefined);
      expect(final, `no final event within ${ENDED_WITHIN_MS} ms`).toBeDefined();
      expect([143, 137]).toContain(final?.exit_code);
    });
  }

  it('keeps a detached command running after its socket closed', async () => {
    const { client, commandId } = await startOverExec(true);
    client.close();
    await client.closed;
    // Well past the grace (and the SIGTERM→SIGKILL grace) it still runs.
    await new Promise((resolve) => setTimeout(resolve, (GRACE_SECONDS + 3) * 1000));
    const final = await finalEvent(commandId);
    figures.tried++;
    if (final === undefined) figures.rejected++;
    else figures.escapes++;
    expect(final, 'the detached command was ended').toBeUndefined();
    // End it by hand.
    const again = await WsClient.connect(server.url, '/sockets/exec');
    again.send({ type: 'attach', command_id: commandId, after_order: -1 });
    again.send({ type: 'signal', command_id: commandId, signal: 'SIGKILL' });
    expect(await again.waitFor((frame) => frame.type === 'exit')).toBeDefined();
    again.close();
  });

  it('ends an execute_bash_command whose HTTP request was aborted, after the grace', async () => {
    const tag = randomBytes(6).toString('hex');
    const abort = new AbortController();
    const request = attempt(`${server.url}/api/bash/execute_bash_command`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ command: `sleep 1000 # ${tag}`, timeout: 2000 }),
      signal: abort.signal,
      timeoutMs: 60_000,
    });
    let commandId: string | undefined;
    await waitFor(async () => {
      const page = await call(`${server.url}/api/bash/bash_events/search?kind__eq=BashCommand`, {
        headers: AUTH,
      });
      const items = (page.json as { items: { id: string; command: string }[] }).items;
      commandId = items.find((item) => item.command.includes(tag))?.id;
      return commandId !== undefined;
    }, 15_000);
    expect(commandId, 'the command never started').toBeDefined();
    abort.abort();
    await request;
    const final = await awaitFinal(commandId as string, ENDED_WITHIN_MS);
    count(final !== undefined);
    expect(final, `no final event within ${ENDED_WITHIN_MS} ms`).toBeDefined();
    expect([143, 137]).toContain(final?.exit_code);
  });
});
