import { describe, expect, it } from 'vitest';
import { buildContainerSpec } from './build-container-spec.js';
import { SANDBOX_SECCOMP_PROFILE, sandboxServerFlags } from './container-sandbox.js';

const fields = { image: 'agent-workspace/agent-server:dev', publishAddress: '127.0.0.1' };

describe('container sandbox', () => {
  it('passes the policy to the agent-server as flags after the command', () => {
    expect(sandboxServerFlags(true)).toEqual(['--sandbox']);
    expect(sandboxServerFlags({ network: false })).toEqual(['--sandbox', '--no-sandbox-network']);
    expect(sandboxServerFlags({ allowHosts: ['a.example', '10.0.0.1:8080'] })).toEqual([
      '--sandbox',
      '--allow-host',
      'a.example',
      '--allow-host',
      '10.0.0.1:8080',
    ]);
    const spec = buildContainerSpec({
      options: {
        ...fields,
        command: ['--log-level', 'warn'],
        sandbox: { allowHosts: ['a.example'] },
      },
      labels: {},
      environment: {},
      apiKey: 'k'.repeat(32),
    });
    expect(spec.Cmd).toEqual(['--log-level', 'warn', '--sandbox', '--allow-host', 'a.example']);
  });

  it('gives a sandboxed container the security options bubblewrap needs, and no other container', () => {
    const sandboxed = buildContainerSpec({
      options: { ...fields, sandbox: true },
      labels: {},
      environment: {},
      apiKey: 'k'.repeat(32),
    }).HostConfig;
    expect(sandboxed?.SecurityOpt).toEqual([
      `seccomp=${SANDBOX_SECCOMP_PROFILE}`,
      'no-new-privileges',
    ]);
    expect(sandboxed?.MaskedPaths).toEqual([]);
    expect(sandboxed?.ReadonlyPaths).toEqual([]);
    const profile = JSON.parse(SANDBOX_SECCOMP_PROFILE) as {
      syscalls: { names: string[]; action: string }[];
    };
    const refused = profile.syscalls.flatMap((rule) => rule.names);
    expect(refused).toEqual(
      expect.arrayContaining(['kexec_load', 'bpf', 'keyctl', 'io_uring_setup']),
    );
    // What bubblewrap and nsenter need stays allowed.
    for (const needed of ['clone', 'unshare', 'setns', 'mount', 'pivot_root']) {
      expect(refused).not.toContain(needed);
    }
    const plain = buildContainerSpec({
      options: fields,
      labels: {},
      environment: {},
      apiKey: 'k'.repeat(32),
    });
    expect(plain.Cmd).toBeUndefined();
    expect(plain.HostConfig).not.toHaveProperty('SecurityOpt');
    expect(plain.HostConfig).not.toHaveProperty('MaskedPaths');
  });
});
