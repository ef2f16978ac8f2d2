/** DockerWorkspace `exposePort` on a real engine: a dev server started inside answers from here. */
import { portExposureOf } from '@agent-workspace/core';
import { afterAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DockerWorkspace } from './docker-workspace.js';
import { dockerTestContext } from './test-support/docker-test-context.js';

const context = dockerTestContext();
afterAll(() => context.removeAll());

// A dev server with a websocket echo, on port 5173 inside the container (Node's own modules).
const DEV_SERVER = `
const http = require('node:http');
const crypto = require('node:crypto');
const server = http.createServer((request, response) => response.end('dev server at ' + request.url));
server.on('upgrade', (request, socket) => {
  const accept = crypto.createHash('sha1')
    .update(request.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: ' + accept + '\\r\\n\\r\\n');
  socket.write(Buffer.from([0x81, 5, ...Buffer.from('ready')]));
});
server.listen(5173, '127.0.0.1', () => console.log('listening'));
`;

context.describe('DockerWorkspace exposePort', () => {
  it('reaches a dev server started in the container over HTTP and websocket, until closed', async () => {
    await using workspace = await DockerWorkspace.create({
      image: context.image,
      labels: context.labels,
    });
    const started = await workspace.executeCommand(
      `cat > dev-server.js <<'EOF'\n${DEV_SERVER}\nEOF\nnode dev-server.js > dev.log 2>&1 &\nfor i in $(seq 100); do grep -q listening dev.log && break; sleep 0.1; done; cat dev.log`,
    );
    expect(started.stdout).toContain('listening');
    const ports = portExposureOf(workspace);
    expect(ports).toBeDefined();
    const exposed = await ports!.exposePort(5173);
    expect(exposed.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${exposed.url}/app?x=1`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('dev server at /app?x=1');
    const socket = new WebSocket(`${exposed.url.replace('http', 'ws')}/hmr`);
    const first = await new Promise<string>((resolve, reject) => {
      socket.once('message', (data: WebSocket.RawData) => resolve(data.toString()));
      socket.once('error', reject);
    });
    expect(first).toBe('ready');
    socket.terminate();
    // Nothing listens on another port: the forwarder says so instead of hanging.
    const nothing = await ports!.exposePort(5174);
    expect((await fetch(nothing.url)).status).toBe(502);
    await exposed.close();
    await expect(fetch(exposed.url)).rejects.toThrow();
  });
});
