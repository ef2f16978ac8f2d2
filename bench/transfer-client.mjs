// One transfer in a fresh process, so its peak RSS is this client's alone.
// Usage: node transfer-client.mjs <raw|remote> <upload|download> <url> <apiKey> <local> <remote>
// Prints {"ms": <transfer time>, "peakRssBytes": <peak RSS>}.
import { createReadStream, createWriteStream } from 'node:fs';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import { RemoteWorkspace } from '@agent-workspace/core';

const [mode, direction, url, apiKey, local, remote] = process.argv.slice(2);

/** node:http with default stream settings: PUT streams the file up, GET streams it back. */
async function raw() {
  const target = new URL(`/${remote.split('/').pop()}`, url);
  await new Promise((resolve, reject) => {
    if (direction === 'upload') {
      const request = http.request(target, { method: 'PUT' }, (response) => {
        response.resume();
        response.on('end', resolve);
      });
      request.on('error', reject);
      pipeline(createReadStream(local), request).catch(reject);
    } else {
      http
        .get(target, (response) =>
          pipeline(response, createWriteStream(local)).then(resolve, reject),
        )
        .on('error', reject);
    }
  });
}

async function viaRemoteWorkspace() {
  const workspace = new RemoteWorkspace({ host: url, workingDir: '/', apiKey });
  try {
    const result =
      direction === 'upload'
        ? await workspace.fileUpload(local, remote)
        : await workspace.fileDownload(remote, local);
    if (!result.success) throw new Error(`${direction} failed: ${result.error}`);
  } finally {
    await workspace.close();
  }
}

const start = performance.now();
await (mode === 'raw' ? raw() : viaRemoteWorkspace());
const ms = performance.now() - start;
console.log(JSON.stringify({ ms, peakRssBytes: process.resourceUsage().maxRSS * 1024 }));
