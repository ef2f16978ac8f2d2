// Run with node inside a bubblewrap sandbox by egress-bench.ts; prints one JSON line with what
// it measured inside (so sandbox entry and node start are not counted).
//   requests <n> <url>   n sequential keep-alive GETs: to <url> directly, or as forward
//                        requests through HTTP_PROXY when it is set
//   download <url>       one GET, the body counted and dropped: directly, or over a CONNECT
//                        tunnel through HTTP_PROXY when it is set
// Prints {"ms": <elapsed>, "bytes": <body bytes>}.
import http from 'node:http';

const [mode, ...args] = process.argv.slice(2);
// The proxy the sandbox's proxyEnvironment() set, if any.
const { HTTP_PROXY: proxyUrl } = process.env;
const proxy = proxyUrl ? new URL(proxyUrl) : undefined;
const proxyAuthorization = proxy
  ? `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:`).toString('base64')}`
  : undefined;

/** One GET; resolves with the body's byte count. */
function get(options) {
  return new Promise((resolve, reject) => {
    const request = http.request(options, (response) => {
      let bytes = 0;
      response.on('data', (chunk) => {
        bytes += chunk.length;
      });
      response.on('end', () =>
        response.statusCode === 200
          ? resolve(bytes)
          : reject(new Error(`status ${response.statusCode}`)),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

/** A socket tunnelled to `target` (host:port) through the proxy. */
function tunnel(target) {
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: proxy.hostname,
      port: Number(proxy.port),
      method: 'CONNECT',
      path: target,
      headers: { 'proxy-authorization': proxyAuthorization },
      agent: false,
    });
    request.on('connect', (response, socket) =>
      response.statusCode === 200
        ? resolve(socket)
        : reject(new Error(`CONNECT ${response.statusCode}`)),
    );
    request.on('error', reject);
    request.end();
  });
}

const start = performance.now();
let bytes = 0;
if (mode === 'requests') {
  const [count, url] = args;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url);
  const options = proxy
    ? {
        host: proxy.hostname,
        port: Number(proxy.port),
        path: url,
        headers: { host: target.host, 'proxy-authorization': proxyAuthorization },
        agent,
      }
    : { host: target.hostname, port: Number(target.port), path: target.pathname, agent };
  for (let index = 0; index < Number(count); index += 1) bytes += await get(options);
  agent.destroy();
} else if (mode === 'download') {
  const target = new URL(args[0]);
  const socket = proxy ? await tunnel(target.host) : undefined;
  bytes = await get({
    host: target.hostname,
    port: Number(target.port),
    path: target.pathname,
    // createConnection is used only without an agent.
    ...(socket ? { createConnection: () => socket } : { agent: false }),
  });
} else {
  throw new Error(`unknown mode ${mode}`);
}
console.log(JSON.stringify({ ms: performance.now() - start, bytes }));
