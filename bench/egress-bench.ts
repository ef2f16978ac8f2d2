import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BubblewrapSandbox, LocalWorkspace } from '@agent-workspace/core';
import { bestOf, type Comparison, roundsComparison } from './bench-harness.js';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const client = path.join(benchDir, 'egress-client.mjs');
const MIB = 1024 * 1024;
const DOWNLOAD_BYTES = 64 * MIB;
const REQUESTS = 200;
const ROUNDS = 5;

/** What one run of the client measured inside the sandbox. */
interface ClientSample {
  ms: number;
  bytes: number;
}

/** A loopback HTTP server: `/small` answers `ok`, `/big` streams {@link DOWNLOAD_BYTES}. */
async function startTarget() {
  const chunk = Buffer.alloc(MIB, 'a');
  const server = createServer(async (request, response) => {
    if (request.url !== '/big') {
      response.end('ok');
      return;
    }
    response.writeHead(200, { 'content-length': DOWNLOAD_BYTES });
    for (let sent = 0; sent < DOWNLOAD_BYTES; sent += MIB) {
      if (!response.write(chunk)) await once(response, 'drain');
    }
    response.end();
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

/** Runs the client in `workspace` with `args`; what it measured. */
async function sample(workspace: LocalWorkspace, ...args: string[]): Promise<ClientSample> {
  const command = [process.execPath, client, ...args].map((arg) => `'${arg}'`).join(' ');
  const result = await workspace.executeCommand(command, { timeoutMs: 120_000 });
  if (result.exitCode !== 0)
    throw new Error(`egress client failed (${args.join(' ')}): ${result.stderr}`);
  return JSON.parse(result.stdout) as ClientSample;
}

/**
 * What the egress policy costs: the same loopback HTTP traffic from a sandboxed node, straight
 * out of a sandbox on the host network against through the policy's bridge and proxy (forward
 * requests for many small GETs, a CONNECT tunnel for a 64 MiB download), and starting a
 * sandbox with a policy against one without.
 */
export async function benchEgress(): Promise<Comparison[]> {
  const unsupported = BubblewrapSandbox.unsupportedReason();
  if (unsupported) {
    console.warn(`!!! skipping egress scenarios: ${unsupported}`);
    return [];
  }
  const root = await mkdtemp(path.join(tmpdir(), 'bench-egress-'));
  const { server, origin } = await startTarget();
  const sandbox = (network: boolean | { allowHosts: string[] }) => ({
    network,
    readOnlyPaths: [benchDir],
  });
  const direct = new LocalWorkspace({
    workingDir: await mkdtemp(path.join(root, 'direct-')),
    sandbox: sandbox(true),
  });
  const proxied = new LocalWorkspace({
    workingDir: await mkdtemp(path.join(root, 'proxied-')),
    sandbox: sandbox({ allowHosts: [new URL(origin).host] }),
  });
  try {
    const results: Comparison[] = [];
    const requests = await bestOf({
      rounds: ROUNDS,
      warmup: 1,
      baseline: () => sample(direct, 'requests', String(REQUESTS), `${origin}/small`),
      candidate: () => sample(proxied, 'requests', String(REQUESTS), `${origin}/small`),
    });
    results.push(
      roundsComparison({
        scenario: `${REQUESTS} sequential keep-alive GETs from a sandboxed node to a loopback server`,
        baseline: { name: 'network: true, direct', samples: requests.baseline.map((s) => s.ms) },
        candidate: {
          name: 'allowHosts, forward proxy via bridge',
          samples: requests.candidate.map((s) => s.ms),
        },
        unit: 'ms',
        higherIsBetter: false,
        notes: `per request: ${perRequest(requests.baseline)} direct, ${perRequest(requests.candidate)} proxied (best round)`,
      }),
    );
    const downloads = await bestOf({
      rounds: ROUNDS,
      warmup: 1,
      baseline: () => sample(direct, 'download', `${origin}/big`),
      candidate: () => sample(proxied, 'download', `${origin}/big`),
    });
    const throughput = (samples: ClientSample[]) =>
      samples.map(({ ms, bytes }) => bytes / MIB / (ms / 1000));
    results.push(
      roundsComparison({
        scenario: '64 MiB download from a sandboxed node (loopback server)',
        baseline: { name: 'network: true, direct', samples: throughput(downloads.baseline) },
        candidate: {
          name: 'allowHosts, CONNECT tunnel via bridge',
          samples: throughput(downloads.candidate),
        },
        unit: 'MiB/s',
        higherIsBetter: true,
      }),
    );
    const starts = await bestOf({
      rounds: ROUNDS,
      warmup: 1,
      baseline: () => timeStart(root, true),
      candidate: () => timeStart(root, { allowHosts: [new URL(origin).host] }),
    });
    results.push(
      roundsComparison({
        scenario: 'BubblewrapSandbox.start() + close()',
        baseline: { name: 'network: true', samples: starts.baseline },
        candidate: { name: 'network: { allowHosts } (proxy + bridge)', samples: starts.candidate },
        unit: 'ms',
        higherIsBetter: false,
      }),
    );
    return results;
  } finally {
    await direct.close();
    await proxied.close();
    server.closeAllConnections();
    server.close();
    await rm(root, { recursive: true, force: true });
  }
}

function perRequest(samples: ClientSample[]): string {
  return `${(Math.min(...samples.map((s) => s.ms)) / REQUESTS).toFixed(3)} ms`;
}

/** Milliseconds to start a sandbox with `network` and close it again. */
async function timeStart(
  root: string,
  network: boolean | { allowHosts: string[] },
): Promise<number> {
  const workingDir = await mkdtemp(path.join(root, 'start-'));
  const started = performance.now();
  const box = await BubblewrapSandbox.start({ workingDir, network });
  await box.close();
  return performance.now() - started;
}
