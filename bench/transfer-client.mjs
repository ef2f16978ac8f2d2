// One upload and one download in a fresh process, so its peak RSS is the client's alone.
// Usage: node transfer-client.mjs <raw|remote> <url> <apiKey> <source> <remotePath> <downloadTo>
import { createReadStream, createWriteStream } from 'node:fs';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import { RemoteWorkspace } from '@agent-workspace/core';

const [mode, url, apiKey, source, remotePath, downloadTo] = process.argv.slice(2);

async function raw() {
  const target = new URL(`/${remotePath.split('/').pop()}`, url);
  const upload = performance.now();
  await new Promise((resolve, reject) => {
    const request = http.request(target, { method: 'PUT' }, (response) => {
      response.resume();
      response.on('end', resolve);
    });
    request.on('error', reject);
    pipeline(createReadStream(source), request).catch(reject);
  });
  const uploadMs = performance.now() - upload;
  const download = performance.now();
  await new Promise((resolve, reject) => {
    http
      .get(target, (response) =>
        pipeline(response, createWriteStream(downloadTo)).then(resolve, reject),
      )
      .on('error', reject);
  });
  return { uploadMs, downloadMs: performance.now() - download };
}

async function remote() {
  const workspace = new RemoteWorkspace({ host: url, workingDir: '/', apiKey });
  try {
    const upload = performance.now();
    const sent = await workspace.fileUpload(source, remotePath);
    if (!sent.success) throw new Error(`upload failed: ${sent.error}`);
    const uploadMs = performance.now() - upload;
    const download = performance.now();
    const received = await workspace.fileDownload(remotePath, downloadTo);
    if (!received.success) throw new Error(`download failed: ${received.error}`);
    return { uploadMs, downloadMs: performance.now() - download };
  } finally {
    await workspace.close();
  }
}

const timings = mode === 'raw' ? await raw() : await remote();
console.log(JSON.stringify({ ...timings, peakRssBytes: process.resourceUsage().maxRSS * 1024 }));
