import { describe, expect, it } from 'vitest';
import {
  RESERVED_ENVIRONMENT_NAMES,
  reservedEnvironmentReason,
} from './reserved-environment-names.js';

describe('reservedEnvironmentReason', () => {
  it('reserves the keys, loader, Node, OpenSSL, shell, init and agent-server settings', () => {
    for (const name of [
      'SESSION_API_KEY',
      'SESSION_API_KEY_SHA256',
      'OH_SESSION_API_KEYS_0',
      'OH_ALLOW_CORS_ORIGINS_0',
      'DOCKER_HOST_ADDR',
      'AGENT_SERVER_WRITE_CODE_CACHE',
      'AGENT_WORKSPACE_PROJECTION',
      'AGENT_WORKSPACE_CHROMIUM',
      'LD_PRELOAD',
      'LD_LIBRARY_PATH',
      'LD_AUDIT',
      'GCONV_PATH',
      'GLIBC_TUNABLES',
      'NODE_OPTIONS',
      'NODE_PATH',
      'NODE_TLS_REJECT_UNAUTHORIZED',
      'NODE_DEBUG',
      'OPENSSL_CONF',
      'BASH_ENV',
      'ENV',
      'BASH_FUNC_git%%',
      'SHELLOPTS',
      'BASHOPTS',
      'TINI_SUBREAPER',
    ]) {
      expect(reservedEnvironmentReason(name), name).toEqual(expect.any(String));
    }
  });

  it('matches case-insensitively, exceptions too', () => {
    expect(reservedEnvironmentReason('ld_preload')).toBe(reservedEnvironmentReason('LD_PRELOAD'));
    expect(reservedEnvironmentReason('Node_Options')).toMatch(/Node runs the agent-server/);
    expect(reservedEnvironmentReason('bash_env')).toMatch(/shell/);
    expect(reservedEnvironmentReason('node_env')).toBeUndefined();
  });

  it('leaves ordinary variables, NODE_ENV and NODE_EXTRA_CA_CERTS alone', () => {
    for (const name of [
      'DEBUG',
      'PATH',
      'HOME',
      'OPENAI_API_KEY',
      'NODE_ENV',
      'NODE_EXTRA_CA_CERTS',
      'ENVIRONMENT',
      'MY_LD_PRELOAD',
      'NODES',
      'SESSION_ID',
      'BASH',
    ]) {
      expect(reservedEnvironmentReason(name), name).toBeUndefined();
    }
  });

  it('gives every entry a reason and keeps exceptions inside their prefix', () => {
    for (const { pattern, except, reason } of RESERVED_ENVIRONMENT_NAMES) {
      expect(reason.length, pattern).toBeGreaterThan(10);
      expect(pattern, pattern).toBe(pattern.toUpperCase());
      for (const name of except ?? []) {
        expect(pattern.endsWith('*') && name.startsWith(pattern.slice(0, -1)), name).toBe(true);
      }
    }
  });
});
