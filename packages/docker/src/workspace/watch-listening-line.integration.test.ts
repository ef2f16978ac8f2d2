/**
 * Readiness from the agent-server's own word: the listening line in the container's log stream,
 * seen even when it was written before the stream opened, and a clear failure otherwise.
 */
import { afterAll, expect, it } from 'vitest';
import { dockerTestContext } from './test-support/docker-test-context.js';
import { watchListeningLine } from './watch-listening-line.js';

const context = dockerTestContext();
afterAll(() => context.removeAll());

async function startContainer(options: { entrypoint?: string[]; cmd?: string[] } = {}) {
  const container = await context.docker.createContainer({
    Image: context.image,
    Labels: context.labels,
    Env: ['SESSION_API_KEY=listening-line-test'],
    ...(options.entrypoint && { Entrypoint: options.entrypoint }),
    ...(options.cmd && { Cmd: options.cmd }),
  });
  await container.start();
  return container;
}

async function answersHealth(container: Awaited<ReturnType<typeof startContainer>>) {
  const probe = await container.exec({
    Cmd: ['bash', '-c', 'exec 3<>/dev/tcp/127.0.0.1/8000 && echo ok'],
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = await probe.start({});
  await new Promise((resolve) => stream.on('end', resolve).resume());
  return (await probe.inspect()).ExitCode === 0;
}

context.describe('watchListeningLine', () => {
  it('resolves once the agent-server listens, and then it answers', async () => {
    const container = await startContainer();
    const watch = watchListeningLine({ container, signal: AbortSignal.timeout(60_000) });
    await watch.ready;
    expect(await answersHealth(container)).toBe(true);
  });

  it('sees a line written before the stream opened', async () => {
    const container = await startContainer();
    await expect
      .poll(() => answersHealth(container), { timeout: 30_000, interval: 100 })
      .toBe(true);
    const watch = watchListeningLine({ container, signal: AbortSignal.timeout(30_000) });
    await expect(watch.ready).resolves.toBeUndefined();
  });

  it('rejects when the output ends without the line', async () => {
    const container = await startContainer({ entrypoint: ['bash', '-c', 'echo not a server'] });
    const watch = watchListeningLine({ container, signal: AbortSignal.timeout(30_000) });
    await expect(watch.ready).rejects.toThrow(/ended before the agent-server listened/);
  });

  it('rejects when stopped, for a server that never writes the line', async () => {
    // At warn level the info line is never written: callers fall back to polling.
    const container = await startContainer({
      cmd: ['--log-level', 'warn'],
    });
    const watch = watchListeningLine({ container, signal: AbortSignal.timeout(30_000) });
    await expect
      .poll(() => answersHealth(container), { timeout: 30_000, interval: 100 })
      .toBe(true);
    watch.stop();
    await expect(watch.ready).rejects.toThrow();
  });
});
