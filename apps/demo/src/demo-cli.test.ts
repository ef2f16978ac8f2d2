/**
 * The demo CLI as a user runs it: a real `node` process on src/main.ts, against real HTTP
 * servers on loopback (an OpenAI-compatible double, an agent-server) or a closed port.
 */
import { once } from 'node:events';
import { readdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { startTestServer } from '@agent-workspace/agent-server/testing';
import { describe, expect, it } from 'vitest';
import { OpenAIDouble } from './test-support/openai-double.js';
import { demo, expectOneLineFailure } from './test-support/run-demo-cli.js';

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

const FAST_RETRIES = ['--max-retries', '2', '--retry-wait-ms', '1'];

describe('the demo CLI', () => {
  it('--help lists every flag with its default and exits with 0', async () => {
    const run = await demo('--help');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    for (const flag of ['--workspace', '--host', '--api-key', '--working-dir', '--model']) {
      expect(run.stdout).toContain(flag);
    }
    for (const flag of ['--base-url', '--max-retries', '--retry-wait-ms', '--keep', '--help']) {
      expect(run.stdout).toContain(flag);
    }
    expect(run.stdout).toMatch(/^ {2}--max-retries <n> .* 2$/m);
    expect(run.stdout).toMatch(/^ {2}--retry-wait-ms <ms> .* 1000$/m);
  });

  it('names a mistyped flag in one line and exits with 2', async () => {
    const run = await demo('--wrokspace', 'docker');
    expectOneLineFailure(run, 2, /^demo: unknown flag --wrokspace \(see --help\)$/);
  });

  it('names a bad value in one line and exits with 2', async () => {
    expectOneLineFailure(
      await demo('--max-retries', 'many'),
      2,
      /^demo: --max-retries must be an integer from 0 to 20, got "many" \(see --help\)$/,
    );
    expectOneLineFailure(
      await demo('--workspace', 'cloud'),
      2,
      /^demo: --workspace must be local, docker or remote, got "cloud"/,
    );
  });

  it('reports each retry of an unreachable model, then the network error in one line', async () => {
    const port = await closedPort();
    const baseUrl = `http://127.0.0.1:${port}/v1`;
    const run = await demo('--model', 'openai/double', '--base-url', baseUrl, ...FAST_RETRIES);
    expectOneLineFailure(
      run,
      1,
      new RegExp(`^demo: cannot reach ${baseUrl}: ECONNREFUSED \\(3 attempts\\)$`),
    );
    expect(run.stdout).toContain(
      'model unreachable (attempt 1/3 failed: ECONNREFUSED), retrying in 1 ms…',
    );
    expect(run.stdout).toContain('model unreachable (attempt 2/3 failed: ECONNREFUSED)');
  });

  it('names a 401 from the model with its status and URL', async () => {
    await using double = await OpenAIDouble.start([{ status: 401, message: 'Invalid key.' }]);
    const run = await demo('--model', 'openai/double', '--base-url', double.baseUrl);
    expectOneLineFailure(
      run,
      1,
      new RegExp(
        `^demo: model request failed: 401 Unauthorized from ${double.baseUrl}: Invalid key\\.$`,
      ),
    );
    expect(double.requests).toBe(1);
  });

  it('names a text-only answer', async () => {
    await using double = await OpenAIDouble.start([{ text: 'Here is stats.js: ...' }]);
    const run = await demo('--model', 'openai/double', '--base-url', double.baseUrl);
    expectOneLineFailure(
      run,
      1,
      /^demo: the model answered text without a tool call: "Here is stats\.js: \.\.\."$/,
    );
  });

  it('names an unknown tool the model called', async () => {
    await using double = await OpenAIDouble.start([
      { toolCalls: [{ name: 'write_file', arguments: '{"path":"stats.js"}' }] },
      { text: 'I cannot continue.' },
    ]);
    const run = await demo('--model', 'openai/double', '--base-url', double.baseUrl);
    expectOneLineFailure(run, 1, /^demo: the model called an unknown tool "write_file"$/);
    expect(run.stdout).toContain("Tool 'write_file' not found");
  });

  it('works in a new directory of a remote server working dir and removes it, also after a failure', async () => {
    await using server = await startTestServer({ sessionApiKeys: ['demo-key'] });
    const remote = ['--workspace', 'remote', '--host', server.url, '--api-key', 'demo-key'];
    const run = await demo(...remote);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`remote workspace at ${server.dir}/agent-demo-`);
    expect(run.stdout).toContain('test:    all tests passed');
    expect(await readdir(server.dir)).toEqual([]);

    await using double = await OpenAIDouble.start([{ status: 401, message: 'Invalid key.' }]);
    const failed = await demo(...remote, '--model', 'openai/double', '--base-url', double.baseUrl);
    expectOneLineFailure(failed, 1, /^demo: model request failed: 401 Unauthorized from /);
    expect(await readdir(server.dir)).toEqual([]);
  });
});
