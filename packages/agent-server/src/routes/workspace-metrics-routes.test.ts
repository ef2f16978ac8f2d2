import {
  WORKSPACE_METRICS_CAPABILITY,
  WORKSPACE_METRICS_ROUTE,
  workspaceMetricsWireSchema,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

const KEY = 'metrics-route-key-0123456789';

describe('GET /api/workspace/metrics', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ sessionApiKeys: [KEY] });
  });
  afterAll(() => t?.close());

  const get = (headers: Record<string, string> = { 'X-Session-API-Key': KEY }) =>
    fetch(`${t.url}${WORKSPACE_METRICS_ROUTE}`, { headers });

  it("answers the server's cgroup and working-directory disk, and is announced", async () => {
    const response = await get();
    expect(response.status).toBe(200);
    const metrics = workspaceMetricsWireSchema.parse(await response.json());
    expect(Date.now() - Date.parse(metrics.sampled_at)).toBeLessThan(60_000);
    expect(metrics.disk_total_bytes).toBeGreaterThan(0);
    expect(metrics.disk_used_bytes).toBeGreaterThan(0);
    expect(metrics.disk_used_bytes!).toBeLessThanOrEqual(metrics.disk_total_bytes!);
    if (process.platform === 'linux') {
      // Every Linux machine has a memory and a CPU accounting controller.
      expect(metrics.memory_bytes).toBeGreaterThan(0);
      expect(metrics.cpu_seconds).toBeGreaterThan(0);
      expect(metrics.oom_kills).toBeGreaterThanOrEqual(0);
    }
    const info = (await (
      await fetch(`${t.url}/server_info`, { headers: { 'X-Session-API-Key': KEY } })
    ).json()) as { capabilities: string[] };
    expect(info.capabilities).toContain(WORKSPACE_METRICS_CAPABILITY);
  });

  it('asks for the session key', async () => {
    expect((await get({})).status).toBe(401);
  });

  it('is absent without extensions, like our other routes', async () => {
    const plain = await startTestServer({ extensions: false });
    try {
      expect((await fetch(`${plain.url}${WORKSPACE_METRICS_ROUTE}`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
