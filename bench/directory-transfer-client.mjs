// One directory upload and one download through RemoteWorkspace in a fresh process, so its
// peak RSS is the client's alone.
// Usage: node directory-transfer-client.mjs <url> <apiKey> <sourceDir> <remoteDir> <downloadTo>
import { RemoteWorkspace } from '@agent-workspace/core';

const [url, apiKey, source, remoteDir, downloadTo] = process.argv.slice(2);

const workspace = new RemoteWorkspace({ host: url, workingDir: '/', apiKey });
try {
  // Reads /server_info once, outside the timed transfers.
  await workspace.serverInfo();
  const upload = performance.now();
  const sent = await workspace.uploadDirectory(source, remoteDir);
  if (!sent.success) throw new Error(`upload failed: ${sent.error}`);
  const uploadMs = performance.now() - upload;
  const download = performance.now();
  const received = await workspace.downloadDirectory(remoteDir, downloadTo);
  if (!received.success) throw new Error(`download failed: ${received.error}`);
  const downloadMs = performance.now() - download;
  console.log(
    JSON.stringify({
      uploadMs,
      downloadMs,
      files: received.files,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    }),
  );
} finally {
  await workspace.close();
}
