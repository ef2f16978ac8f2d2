// The least a Node client costs for a directory download: one GET of the agent-server's
// directory archive over node:http, its body handed to GNU tar (`tar -x`), no checks of ours.
// Times from the request to tar's exit, after Node has started. Prints {"downloadMs": n}.
// Usage: node node-tar-client.mjs <url> <apiKey> <remoteDir> <downloadTo>
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import { AGENT_SERVER_ROUTES, SESSION_API_KEY_HEADER } from '@agent-workspace/protocol/constants';

const [url, apiKey, remoteDir, downloadTo] = process.argv.slice(2);

await mkdir(downloadTo, { recursive: true });
const start = performance.now();
const target = new URL(AGENT_SERVER_ROUTES.directoryArchive, url);
target.searchParams.set('path', remoteDir);
const response = await new Promise((resolve, reject) =>
  http
    .get(target, { headers: { [SESSION_API_KEY_HEADER]: apiKey } }, resolve)
    .once('error', reject),
);
if (response.statusCode !== 200) throw new Error(`the archive answered ${response.statusCode}`);
const tar = spawn('tar', ['-x', '-C', downloadTo], { stdio: ['pipe', 'ignore', 'inherit'] });
const exited = new Promise((resolve) => tar.once('exit', resolve));
response.pipe(tar.stdin);
const code = await exited;
if (code !== 0) throw new Error(`tar -x exited with ${code}`);
console.log(JSON.stringify({ downloadMs: performance.now() - start }));
