/** DockerWorkspace `extraHosts` on a real engine: the container resolves the names it was given. */
import { afterAll, expect, it } from 'vitest';
import { DockerWorkspace } from './docker-workspace.js';
import { dockerTestContext } from './test-support/docker-test-context.js';

const context = dockerTestContext();
afterAll(() => context.removeAll());

context.describe('DockerWorkspace extraHosts', () => {
  it('resolves host.docker.internal to the host gateway and a name to its given IP', async () => {
    await using workspace = await DockerWorkspace.create({
      image: context.image,
      labels: context.labels,
      extraHosts: ['host.docker.internal:host-gateway', 'model.test:10.11.12.13'],
    });
    const result = await workspace.executeCommand(
      'getent hosts model.test && getent hosts host.docker.internal && cat /proc/net/route',
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const [named = '', gateway = '', ...routes] = result.stdout.trim().split('\n');
    expect(named).toMatch(/^10\.11\.12\.13\s+model\.test$/);
    expect(gateway).toMatch(/\shost\.docker\.internal$/);
    // host-gateway is the bridge's gateway: the container's default route (hex, little-endian).
    const defaultRoute = routes
      .map((line) => line.split(/\s+/))
      .find((row) => row[1] === '00000000');
    const hex = defaultRoute?.[2] ?? '';
    const routeGateway = [6, 4, 2, 0].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
    expect(gateway.split(/\s+/)[0]).toBe(routeGateway.join('.'));
  });
});
