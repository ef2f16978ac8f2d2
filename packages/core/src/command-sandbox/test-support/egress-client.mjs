// Run with node inside a sandbox by the egress integration tests; prints one JSON line.
//   get <url>                    GET <url> through the proxy of HTTP_PROXY (absolute form)
//   connect <host:port> <text>   CONNECT through that proxy, send <text>, half-close, read
//   direct <host> <port>         a plain TCP connection, no proxy
//   lookup <name>                dns.lookup
import { lookup } from 'node:dns/promises';
import { request } from 'node:http';
import { connect } from 'node:net';

const [mode, target, text = ''] = process.argv.slice(2);
const proxy = new URL(process.env.HTTP_PROXY ?? 'http://127.0.0.1:1');
const user = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
const proxyOptions = {
  host: proxy.hostname,
  port: Number(proxy.port),
  headers: proxy.username
    ? { 'proxy-authorization': `Basic ${Buffer.from(user).toString('base64')}` }
    : {},
  agent: false,
};

function print(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function failed(error) {
  print({ error: error.code ?? error.message });
}

if (mode === 'get') {
  const req = request({ ...proxyOptions, path: target }, (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      body += chunk;
    });
    res.on('end', () => print({ status: res.statusCode, body }));
  });
  req.on('error', failed);
  req.end();
} else if (mode === 'connect') {
  const req = request({ ...proxyOptions, method: 'CONNECT', path: target });
  req.on('connect', (res, socket, head) => {
    let body = head.toString();
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      body += chunk;
    });
    socket.on('end', () => print({ status: res.statusCode, body }));
    socket.on('error', failed);
    if (res.statusCode === 200) socket.end(text);
  });
  req.on('error', failed);
  req.end();
} else if (mode === 'direct') {
  const socket = connect({ host: target, port: Number(text) });
  socket.on('connect', () => {
    print({ connected: true });
    socket.destroy();
  });
  socket.on('error', failed);
} else if (mode === 'lookup') {
  lookup(target).then((address) => print({ address }), failed);
} else {
  failed(new Error(`unknown mode ${mode}`));
}
