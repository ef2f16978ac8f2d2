import { WORKSPACE_METRICS_ROUTE, workspaceMetricsWireSchema } from '@agent-workspace/protocol';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import { type Answer, call, keepAliveCall } from './support/http.js';
import { AUTH, createScratch, type Scratch, ServerProcess } from './support/server-process.js';

/** Samples asked for at once while commands keep the server busy. */
const CONCURRENT_SAMPLES = 400;

describe('workspace-metrics route under load and hostile input', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  let agent: Agent;
  const figures = new Figures('workspace metrics: hostile input and concurrent samples');

  beforeAll(async () => {
    scratch = await createScratch('workspace-metrics');
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
    });
    agent = new Agent({ connections: 16 });
  });
  afterAll(async () => {
    figures.observeRss(server?.peakRss ?? 0);
    figures.save();
    await agent?.close();
    await server?.stop();
    await scratch?.remove();
  });

  const url = (suffix = '') => `${server.url}${WORKSPACE_METRICS_ROUTE}${suffix}`;

  it('refuses other methods, other paths and a missing or wrong key; query input reads nothing', async () => {
    /** [url, options, expected status] */
    const cases: [string, Parameters<typeof call>[1], number][] = [
      [url(), {}, 401],
      [url(), { headers: { 'x-session-api-key': 'wrong-key' } }, 401],
      [url(), { method: 'POST', headers: AUTH, body: '{}' }, 404],
      [url(), { method: 'DELETE', headers: AUTH }, 404],
      [url('/../../server_info'), { headers: AUTH }, 404],
      [url(`?${'x'.repeat(60_000)}=1`), { headers: AUTH }, 431],
      [url(`?${'x'.repeat(4_000)}=1`), { headers: AUTH }, 200],
      [url('?path=/etc'), { headers: AUTH }, 200],
    ];
    for (const [target, options, expected] of cases) {
      figures.tried++;
      const answer = await call(target, options);
      if (answer.status === expected) {
        if (expected >= 400) figures.rejected++;
      } else {
        figures.escapes++;
      }
      expect(answer.status, `${options?.method ?? 'GET'} ${target.slice(0, 120)}`).toBe(expected);
      if (expected === 200 && target.startsWith(url())) {
        // Query input changes nothing: still the server's own sample, no path is read.
        workspaceMetricsWireSchema.parse(answer.json);
      }
    }
    expect(figures.escapes).toBe(0);
  });

  it(`answers ${CONCURRENT_SAMPLES} samples at once while commands run, and stays up`, async () => {
    const busy = call(`${server.url}/api/bash/execute_bash_command`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'for i in $(seq 1 200); do sh -c true; done', timeout: 60 }),
      timeoutMs: 60_000,
    });
    const answers: Answer[] = await Promise.all(
      Array.from({ length: CONCURRENT_SAMPLES }, () =>
        call(url(), keepAliveCall(agent, { headers: AUTH, timeoutMs: 30_000 })),
      ),
    );
    figures.tried += answers.length;
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      workspaceMetricsWireSchema.parse(answer.json);
    }
    expect((await busy).status).toBe(200);
    expect((await call(`${server.url}/health`)).status).toBe(200);
    figures.note = `${CONCURRENT_SAMPLES} concurrent samples beside 200 short commands`;
  });
});
