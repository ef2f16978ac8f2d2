// Baseline for the directory-transfer bench: node:http plus GNU tar, nothing else.
// PUT /?dir=<absolute dir> pipes the body into `tar -x -C <dir>`; GET /?dir=<absolute dir>
// answers `tar -c -C <dir> .` (`tar -cz` with `&gzip=1`).
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';

const server = http.createServer(async (request, response) => {
  const query = new URL(request.url ?? '/', 'http://localhost').searchParams;
  const dir = query.get('dir') ?? '';
  try {
    if (request.method === 'PUT') {
      await mkdir(dir, { recursive: true });
      const tar = spawn('tar', ['-x', '-C', dir], { stdio: ['pipe', 'ignore', 'inherit'] });
      const exited = new Promise((resolve) => tar.once('exit', resolve));
      await pipeline(request, tar.stdin);
      const code = await exited;
      response.statusCode = code === 0 ? 200 : 500;
      response.end(`{"exit":${code}}`);
    } else {
      const gzip = query.get('gzip') === '1';
      response.writeHead(200, { 'content-type': gzip ? 'application/gzip' : 'application/x-tar' });
      const create = gzip ? ['-cz', '-C', dir, '.'] : ['-c', '-C', dir, '.'];
      const tar = spawn('tar', create, { stdio: ['ignore', 'pipe', 'inherit'] });
      await pipeline(tar.stdout, response);
    }
  } catch (error) {
    response.statusCode = 500;
    response.end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
