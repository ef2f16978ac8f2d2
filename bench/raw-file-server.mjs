// Baseline for the transfer bench: the plainest streaming file server node:http allows.
// PUT /<name> streams the body to a file; GET /<name> streams the file back.
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const root = process.argv[2];
const server = http.createServer(async (request, response) => {
  const file = path.join(root, path.basename(request.url ?? '/x'));
  try {
    if (request.method === 'PUT') {
      await pipeline(request, createWriteStream(file));
      response.end('{"success":true}');
    } else {
      const { size } = await stat(file);
      response.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': size,
      });
      await pipeline(createReadStream(file), response);
    }
  } catch (error) {
    response.statusCode = 500;
    response.end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
