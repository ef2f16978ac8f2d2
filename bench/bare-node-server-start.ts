import http from 'node:http';
import type Docker from 'dockerode';

/** Port of the bare `node:http` server of {@link bareNodeServerStart}. */
const BARE_SERVER_PORT = 8080;

/** A `node:http` server that answers every request with `ok`, and nothing else. */
const BARE_SERVER_SOURCE = `require('node:http').createServer((request, response) => response.end('ok')).listen(${BARE_SERVER_PORT}, '0.0.0.0')`;

/** One `GET` of `url`: true when it was answered, false when the connection failed. */
function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get(url, (response) => {
      response.resume();
      response.once('end', () => resolve(true));
    });
    request.once('error', () => resolve(false));
  });
}

/**
 * The floor of any Node server in the image: create and start it (with an init process, as
 * ours) running a bare `node:http` server, then `GET` its bridge address until it answers
 * (again 1 ms after each refusal, for up to 10 s). No module of ours is loaded; the removal is
 * not timed.
 */
export async function bareNodeServerStart(docker: Docker, image: string): Promise<number> {
  const start = performance.now();
  const container = await docker.createContainer({
    Image: image,
    Entrypoint: ['node', '-e', BARE_SERVER_SOURCE],
    HostConfig: { Init: true },
  });
  try {
    await container.start();
    const address = (await container.inspect()).NetworkSettings.Networks.bridge?.IPAddress;
    if (!address) throw new Error('the bare server container has no bridge address');
    const url = `http://${address}:${BARE_SERVER_PORT}/`;
    while (!(await answers(url))) {
      if (performance.now() - start > 10_000) throw new Error(`${url} did not answer in 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return performance.now() - start;
  } finally {
    await container.remove({ force: true });
  }
}
