// Smoke test of @agent-workspace/protocol installed alone: parse and convert a wire event.
import assert from 'node:assert/strict';
import { AGENT_SERVER_ROUTES, bashEventFromWire, newHexId } from '@agent-workspace/protocol';

const event = bashEventFromWire({
  kind: 'BashOutput',
  id: newHexId(),
  timestamp: '2026-08-22T10:00:00.123456Z',
  command_id: newHexId(),
  order: 0,
  exit_code: 0,
  stdout: 'hi\n',
  stderr: null,
});
assert.equal(event.kind, 'BashOutput');
assert.equal(event.stdout, 'hi\n');
assert.throws(() => bashEventFromWire({ kind: 'BashOutput' }));
assert.equal(typeof AGENT_SERVER_ROUTES.executeBashCommand, 'string');
console.log('protocol ok');
