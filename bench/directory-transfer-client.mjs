// One directory upload and one download through RemoteWorkspace in a fresh process, so its
// peak RSS is the client's alone; then both again in the same process, warm.
// Usage: node directory-transfer-client.mjs <url> <apiKey> <sourceDir> <remoteDir> <downloadTo>
import { RemoteWorkspace } from '@agent-workspace/core';

const [url, apiKey, source, remoteDir, downloadTo] = process.argv.slice(2);

const workspace = new RemoteWorkspace({ host: url, workingDir: '/', apiKey });

/** One upload then one download, each timed. */
async function roundTrip(remote, back) {
  const upload = performance.now();
  const sent = await workspace.uploadDirectory(source, remote);
  if (!sent.success) throw new Error(`upload failed: ${sent.error}`);
  const uploadMs = performance.now() - upload;
  const download = performance.now();
  const received = await workspace.downloadDirectory(remote, back);
  if (!received.success) throw new Error(`download failed: ${received.error}`);
  return { uploadMs, downloadMs: performance.now() - download };
}

try {
  // Reads /server_info once, outside the timed transfers.
  await workspace.serverInfo();
  const first = await roundTrip(remoteDir, downloadTo);
  // The same again in this process, its code warm: the software's steady cost.
  const again = await roundTrip(`${remoteDir}-again`, `${downloadTo}-again`);
  console.log(
    JSON.stringify({
      ...first,
      warmUploadMs: again.uploadMs,
      warmDownloadMs: again.downloadMs,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    }),
  );
} finally {
  await workspace.close();
}
