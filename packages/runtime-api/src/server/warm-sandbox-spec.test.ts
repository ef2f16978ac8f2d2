import { describe, expect, it } from 'vitest';
import { RUNTIME_LABELS } from '../backend/session-labels.js';
import { deriveSandboxKey, sessionKeyHash } from './session-key.js';
import { warmSandboxSpec } from './warm-sandbox-spec.js';

describe('warmSandboxSpec', () => {
  const made = () =>
    warmSandboxSpec({
      entry: { image: 'agent-workspace/agent-server:test', count: 1, workingDir: '/workspace' },
      namespace: 'spec-test',
      sessionKeySecret: 'secret',
      resources: {},
    });

  it('starts the agent-server dormant, with only the hash of an init key derivable from its labels', () => {
    const { spec, key } = made();
    expect(spec.environment).toMatchObject({ OH_DEFERRED_INIT: 'true' });
    expect(spec.sessionKeyHash).toBe(sessionKeyHash(key));
    const nonce = spec.labels[RUNTIME_LABELS.keyNonce] ?? '';
    expect(key).toBe(deriveSandboxKey('secret', spec.runtimeId, nonce));
    expect(JSON.stringify(spec)).not.toContain(key);
  });

  it('gives every sandbox its own runtime id, nonce and key', () => {
    const [first, second] = [made(), made()];
    expect(first.spec.runtimeId).not.toBe(second.spec.runtimeId);
    expect(first.key).not.toBe(second.key);
  });
});
