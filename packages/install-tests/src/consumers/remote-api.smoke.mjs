// Smoke test of @agent-workspace/remote-api installed alone: importing it registers the
// `remote-api` kind with the one copy of core it installed, which validates a config; the client
// talks to a Runtime API that is not there and says so.
import assert from 'node:assert/strict';
import { createWorkspace, WorkspaceError } from '@agent-workspace/core';
import { RemoteAPIWorkspace, RuntimeApiClient } from '@agent-workspace/remote-api';

assert.equal(typeof RemoteAPIWorkspace.create, 'function');
await assert.rejects(
  () => createWorkspace({ kind: 'remote-api', image: 42 }),
  (error) => error instanceof WorkspaceError && error.code === 'INVALID_CONFIG',
);
const client = new RuntimeApiClient({ url: 'http://127.0.0.1:1', apiKey: 'k'.repeat(32) });
try {
  await assert.rejects(
    () => client.listSessions(),
    (error) => error instanceof WorkspaceError && error.code === 'CONNECTION_ERROR',
  );
} finally {
  await client.close();
}
console.log('remote-api ok');
