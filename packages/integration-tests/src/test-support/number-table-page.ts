import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback web site for browser tests: a page with a number table and a link to a second page. */
export interface NumberTablePage extends AsyncDisposable {
  /** URL of the table page; `/next` is the second page. */
  url: string;
  close(): Promise<void>;
}

const TABLE = `<!doctype html>
<html><head><title>Numbers</title></head>
<body>
  <h1>Quarterly numbers</h1>
  <table>
    <tr><th>quarter</th><th>value</th></tr>
    <tr><td>Q1</td><td>17</td></tr>
    <tr><td>Q2</td><td>25</td></tr>
  </table>
  <a href="/next">Next page</a>
</body></html>`;

const NEXT = `<!doctype html>
<html><head><title>Second</title></head><body><p>You reached the second page.</p></body></html>`;

/** Serves the pages on a free port of 127.0.0.1. */
export async function startNumberTablePage(): Promise<NumberTablePage> {
  const server = createServer((request, response) => {
    const body = request.url === '/next' ? NEXT : TABLE;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}/`, close, [Symbol.asyncDispose]: close };
}
