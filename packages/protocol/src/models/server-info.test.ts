import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { serverInfoFromWire, serverInfoWireSchema } from './server-info.js';

/** `/server_info` of an OpenHands server, including fields newer than this package. */
const openHandsWire = {
  uptime: 1234,
  idle_time: 56,
  title: 'OpenHands Agent Server',
  version: '1.12.0',
  sdk_version: '1.12.0',
  tools_version: '1.12.0',
  workspace_version: 'unknown',
  build_git_sha: '611629e6',
  build_git_ref: 'main',
  python_version: '3.12.11 (main, Jun  4 2025, 04:14:08) [GCC 12.2.0]',
  usable_tools: ['terminal', 'file_editor', 'task_tracker'],
  runtime_idle_timeout_seconds: 1200,
  conversation_runtime: 'local',
  capabilities: [
    'credential_binding_v1',
    'credential_binding_readiness_probe_v1',
    'credential_binding_activation_guard_v1',
  ],
  max_foreground_terminal_timeout_seconds: 1080,
  docs: '/docs',
  redoc: '/redoc',
  build: { git_sha: '611629e6', dirty: false },
};

describe('ServerInfo', () => {
  it('parses an OpenHands server_info into camelCase and keeps unknown fields', () => {
    const info = serverInfoFromWire(openHandsWire);
    expect(info).toStrictEqual({
      uptime: 1234,
      idleTime: 56,
      title: 'OpenHands Agent Server',
      version: '1.12.0',
      sdkVersion: '1.12.0',
      toolsVersion: '1.12.0',
      workspaceVersion: 'unknown',
      buildGitSha: '611629e6',
      buildGitRef: 'main',
      pythonVersion: openHandsWire.python_version,
      usableTools: ['terminal', 'file_editor', 'task_tracker'],
      runtimeIdleTimeoutSeconds: 1200,
      capabilities: openHandsWire.capabilities,
      maxForegroundTerminalTimeoutSeconds: 1080,
      docs: '/docs',
      redoc: '/redoc',
      plugins: [],
      resources: null,
      trustBoundary: null,
      extra: { conversation_runtime: 'local', build: { git_sha: '611629e6', dirty: false } },
    });
  });

  it('keeps every wire field, unknown ones included', () => {
    // An OpenHands server has no plugins and reports no resources or trust boundary: those default.
    expect(serverInfoWireSchema.parse(openHandsWire)).toStrictEqual({
      ...openHandsWire,
      plugins: [],
      resources: null,
      trust_boundary: null,
    });
  });

  it('fills OpenHands defaults for missing optional fields', () => {
    const info = serverInfoFromWire({ uptime: 1.5, idle_time: 0 });
    expect(info).toMatchObject({
      uptime: 1.5,
      title: 'OpenHands Agent Server',
      version: 'unknown',
      pythonVersion: null,
      usableTools: [],
      capabilities: [],
      runtimeIdleTimeoutSeconds: null,
      maxForegroundTerminalTimeoutSeconds: null,
      docs: '/docs',
      plugins: [],
      resources: null,
      extra: {},
    });
  });

  it('reads our runtime plugins and resources', () => {
    const plugin = {
      name: 'python',
      state: 'failed',
      error: 'ipykernel missing; install it with: apt-get install -y python3-ipykernel',
      actions: ['run_ipython'],
      capabilities: [],
      healthy: null,
      memory_bytes: null,
    };
    const resources = {
      server_rss_bytes: 100,
      process_trees: [{ label: 'python kernel', pid: 7, rss_bytes: 50 }],
      process_tree_memory_limit_bytes: null,
    };
    const info = serverInfoFromWire({ uptime: 1, idle_time: 0, plugins: [plugin], resources });
    expect(info.plugins).toEqual([plugin]);
    expect(info.trustBoundary).toBeNull();
    expect(info.resources).toEqual(resources);
    expect(info.extra).toEqual({});
    expect(() =>
      serverInfoFromWire({ uptime: 1, idle_time: 0, plugins: [{ ...plugin, state: 'dreaming' }] }),
    ).toThrow(/plugins/);
  });

  it('names the bad field', () => {
    expectZodIssueAt(() => serverInfoFromWire({ idle_time: 0 }), ['uptime']);
    expectZodIssueAt(() => serverInfoFromWire({ ...openHandsWire, idle_time: -1 }), ['idle_time']);
    expectZodIssueAt(
      () => serverInfoFromWire({ ...openHandsWire, capabilities: 'credential_binding_v1' }),
      ['capabilities'],
    );
    expectZodIssueAt(
      () => serverInfoFromWire({ ...openHandsWire, usable_tools: [1] }),
      ['usable_tools', 0],
    );
  });
});
