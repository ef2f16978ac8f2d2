// One transfer in a fresh process, so its peak RSS is this client's alone.
// Usage: node transfer-client.mjs <raw|remote> <upload|download> <url> <apiKey> <local> <remote> <tiny>
// First transfers the 1-byte file <tiny> the same way (the client's first use: the
// RemoteWorkspace loads its transport then), then the big one.
// Prints {"ms": <big transfer>, "firstUseMs": <tiny transfer>, "peakRssBytes": <peak RSS of
// the whole process, first use included>}.
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import { RemoteWorkspace } from '@agent-workspace/core';

const [mode, direction, url, apiKey, local, remote, tiny] = process.argv.slice(2);

/** node:http with default stream settings: PUT streams the file up, GET streams it back. */
function raw(localPath, remotePath) {
  const target = new URL(`/${remotePath.split('/').pop()}`, url);
  return new Promise((resolve, reject) => {
    if (direction === 'upload') {
      const request = http.request(target, { method: 'PUT' }, (response) => {
        response.resume();
        response.on('end', resolve);
      });
      request.on('error', reject);
      pipeline(createReadStream(localPath), request).catch(reject);
    } else {
      http
        .get(target, (response) =>
          pipeline(response, createWriteStream(localPath)).then(resolve, reject),
        )
        .on('error', reject);
    }
  });
}

/** The same transfer through a RemoteWorkspace. */
async function viaRemoteWorkspace(workspace, localPath, remotePath) {
  const result =
    direction === 'upload'
      ? await workspace.fileUpload(localPath, remotePath)
      : await workspace.fileDownload(remotePath, localPath);
  if (!result.success) throw new Error(`${direction} failed: ${result.error}`);
}

const workspace =
  mode === 'remote' ? new RemoteWorkspace({ host: url, workingDir: '/', apiKey }) : undefined;
const transfer = (localPath, remotePath) =>
  workspace ? viaRemoteWorkspace(workspace, localPath, remotePath) : raw(localPath, remotePath);
const timed = async (localPath, remotePath) => {
  const start = performance.now();
  await transfer(localPath, remotePath);
  return performance.now() - start;
};
try {
  // The tiny file goes to / comes from `<remote>.tiny` / `<local>.tiny`.
  const firstUseMs =
    direction === 'upload'
      ? await timed(tiny, `${remote}.tiny`)
      : await timed(`${local}.tiny`, tiny);
  await rm(direction === 'upload' ? `${remote}.tiny` : `${local}.tiny`, { force: true });
  const ms = await timed(local, remote);
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ ms, firstUseMs, peakRssBytes }));
} finally {
  await workspace?.close();
}
