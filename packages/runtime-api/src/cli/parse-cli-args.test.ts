import { describe, expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import {
  RUNTIME_API_SERVER_DEFAULTS,
  resolveRuntimeApiServerOptions,
} from '../server/runtime-api-server-options.js';
import { CLI_USAGE, CliUsageError, parseCliArgs } from './parse-cli-args.js';

const KEY = 'k'.repeat(16);
const SECRET = 's'.repeat(32);
const ENV = { RUNTIME_API_KEY: KEY, RUNTIME_API_SESSION_SECRET: SECRET };
const IMAGE = ['--image', 'agent-workspace/agent-server:test'];

function serve(args: string[], env: NodeJS.ProcessEnv = ENV) {
  const command = parseCliArgs(args, env);
  if (command.kind !== 'serve') throw new Error(`expected serve, got ${command.kind}`);
  return command;
}

/** The usage error message of a command line that must fail. */
function usageError(args: string[], env: NodeJS.ProcessEnv = ENV): string {
  try {
    parseCliArgs(args, env);
  } catch (error) {
    expect(error).toBeInstanceOf(CliUsageError);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('parseCliArgs', () => {
  it('answers help and version before checking anything else', () => {
    expect(parseCliArgs(['--help'], {})).toEqual({ kind: 'help' });
    expect(parseCliArgs(['-h'], {})).toEqual({ kind: 'help' });
    expect(parseCliArgs(['-v'], {})).toEqual({ kind: 'version' });
    for (const flag of ['--image', '--backend', '--idle-action', '--publish-address']) {
      expect(CLI_USAGE).toContain(flag);
    }
    expect(CLI_USAGE).toContain('RUNTIME_API_SESSION_SECRET');
  });

  it("leaves unset what no flag sets, so the server's defaults apply", () => {
    const { backend, server } = serve(IMAGE);
    expect(backend).toEqual({
      kind: 'docker',
      namespace: undefined,
      publishAddress: undefined,
      network: undefined,
    });
    expect(server).toMatchObject({
      apiKeys: [KEY],
      sessionKeySecret: SECRET,
      images: ['agent-workspace/agent-server:test'],
      resources: {},
    });
    for (const name of Object.keys(RUNTIME_API_SERVER_DEFAULTS)) {
      expect(server[name as keyof typeof server], name).toBeUndefined();
    }
    // Connects lazily: resolving asks nothing of an engine.
    const resolved = resolveRuntimeApiServerOptions({
      ...server,
      backend: new DockerRuntimeBackend({ namespace: 'cli-test' }),
    });
    expect(resolved).toMatchObject(RUNTIME_API_SERVER_DEFAULTS);
    expect(resolved.idleTimeoutSeconds).toBeUndefined();
    expect(CLI_USAGE).toContain(`(default ${RUNTIME_API_SERVER_DEFAULTS.port})`);
  });

  it('reads every flag', () => {
    const { backend, server } = serve([
      '--',
      ...IMAGE,
      '--image',
      'other:1',
      '--backend',
      'swarm',
      '--namespace',
      'ci',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--max-sessions',
      '3',
      '--memory-bytes',
      '536870912',
      '--cpus',
      '0.5',
      '--pids-limit',
      '256',
      '--idle-timeout-seconds',
      '600',
      '--idle-action',
      'pause',
      '--idle-check-interval-seconds',
      '2.5',
      '--unacknowledged-start-grace-seconds',
      '90',
      '--readiness-timeout-ms',
      '500',
      '--request-timeout-seconds',
      '3',
      '--max-connections',
      '50',
      '--network',
      'sandboxes',
      '--log-level',
      'warn',
    ]);
    expect(backend).toEqual({
      kind: 'swarm',
      namespace: 'ci',
      publishAddress: undefined,
      network: 'sandboxes',
    });
    expect(server).toMatchObject({
      images: ['agent-workspace/agent-server:test', 'other:1'],
      host: '0.0.0.0',
      port: 0,
      maxSessions: 3,
      resources: { memoryBytes: 536_870_912, cpus: 0.5, pidsLimit: 256 },
      idleTimeoutSeconds: 600,
      idleAction: 'pause',
      idleCheckIntervalSeconds: 2.5,
      unacknowledgedStartGraceSeconds: 90,
      readinessTimeoutMs: 500,
      requestTimeoutSeconds: 3,
      maxConnections: 50,
      logLevel: 'warn',
    });
    expect(serve([...IMAGE, '--publish-address', '0.0.0.0']).backend.publishAddress).toBe(
      '0.0.0.0',
    );
  });

  it('takes keys from RUNTIME_API_KEY and RUNTIME_API_KEYS_<n>, in order', () => {
    const env = {
      RUNTIME_API_SESSION_SECRET: SECRET,
      RUNTIME_API_KEYS_10: 'c'.repeat(16),
      RUNTIME_API_KEYS_2: 'b'.repeat(16),
      RUNTIME_API_KEYS_X: 'ignored-ignored-ignored',
    };
    expect(serve(IMAGE, env).server.apiKeys).toEqual(['b'.repeat(16), 'c'.repeat(16)]);
    expect(serve(IMAGE, { ...env, RUNTIME_API_KEY: KEY }).server.apiKeys).toEqual([
      KEY,
      'b'.repeat(16),
      'c'.repeat(16),
    ]);
  });

  it('names a missing or short secret without showing it', () => {
    expect(usageError(IMAGE, { RUNTIME_API_SESSION_SECRET: SECRET })).toMatch(/^RUNTIME_API_KEY /);
    expect(usageError(IMAGE, { RUNTIME_API_KEY: KEY })).toMatch(/^RUNTIME_API_SESSION_SECRET /);
    const short = usageError(IMAGE, { ...ENV, RUNTIME_API_KEYS_1: 'short-key-123' });
    expect(short).toBe('RUNTIME_API_KEYS_1 must be at least 16 characters long');
    const weak = usageError(IMAGE, { ...ENV, RUNTIME_API_SESSION_SECRET: 'tiny-secret-value' });
    expect(weak).toBe('RUNTIME_API_SESSION_SECRET must be at least 32 characters long');
    expect(weak).not.toContain('tiny-secret-value');
  });

  it('refuses bad flags, naming them', () => {
    expect(usageError([])).toBe('--image is required (at least one)');
    expect(usageError(['--image', ''])).toBe('--image must not be empty');
    expect(usageError([...IMAGE, '--backend', 'k8s'])).toMatch(/^--backend must be one of docker/);
    expect(usageError([...IMAGE, '--port', '70000'])).toMatch(/^--port must be an integer/);
    expect(usageError([...IMAGE, '--max-sessions', '0'])).toMatch(/^--max-sessions /);
    expect(usageError([...IMAGE, '--memory-bytes', '1g'])).toMatch(/^--memory-bytes /);
    expect(usageError([...IMAGE, '--cpus', '0'])).toMatch(/^--cpus must be a positive number/);
    expect(usageError([...IMAGE, '--pids-limit=-1'])).toMatch(/^--pids-limit must be an integer/);
    expect(usageError([...IMAGE, '--idle-timeout-seconds', 'soon'])).toMatch(
      /^--idle-timeout-seconds /,
    );
    expect(usageError([...IMAGE, '--idle-action', 'kill'])).toMatch(/^--idle-action /);
    expect(usageError([...IMAGE, '--unacknowledged-start-grace-seconds', '0'])).toMatch(
      /^--unacknowledged-start-grace-seconds must be a positive number/,
    );
    expect(usageError([...IMAGE, '--log-level', 'loud'])).toMatch(/^--log-level /);
    expect(usageError([...IMAGE, '--namespace', ''])).toBe('--namespace must not be empty');
    expect(usageError([...IMAGE, '--backend', 'swarm', '--publish-address', '0.0.0.0'])).toBe(
      '--publish-address applies to --backend docker only',
    );
    expect(usageError([...IMAGE, '--api-key', KEY])).toMatch(/--api-key/);
    expect(usageError([...IMAGE, 'extra'])).toMatch(/positional/);
  });
});

describe('--warm-pool', () => {
  it('parses <image>=<count>, repeatable, at the last =', () => {
    const images = ['--image', 'registry:5000/agent-server:a', '--image', 'b'];
    const { server } = serve([
      ...images,
      '--warm-pool',
      'registry:5000/agent-server:a=3',
      '--warm-pool',
      'b=1',
    ]);
    expect(server.warmPool).toEqual([
      { image: 'registry:5000/agent-server:a', count: 3 },
      { image: 'b', count: 1 },
    ]);
    expect(serve(IMAGE).server.warmPool).toBeUndefined();
    expect(CLI_USAGE).toContain('--warm-pool <image>=<count>');
  });

  it('names the flag for a bad value, an image not allowed, or the swarm backend', () => {
    expect(usageError([...IMAGE, '--warm-pool', 'agent-workspace/agent-server:test'])).toContain(
      '--warm-pool must be <image>=<count>',
    );
    expect(usageError([...IMAGE, '--warm-pool', '=2'])).toContain('--warm-pool');
    expect(usageError([...IMAGE, '--warm-pool', 'agent-workspace/agent-server:test=0'])).toMatch(
      /^--warm-pool/,
    );
    expect(usageError([...IMAGE, '--warm-pool', 'agent-workspace/agent-server:test=x'])).toMatch(
      /^--warm-pool/,
    );
    expect(usageError([...IMAGE, '--warm-pool', 'other:1=1'])).toContain(
      'other:1 is not one of the --image values',
    );
    expect(
      usageError([
        ...IMAGE,
        '--backend',
        'swarm',
        '--warm-pool',
        'agent-workspace/agent-server:test=1',
      ]),
    ).toContain('--warm-pool applies to --backend docker only');
  });
});

describe('--allow-host', () => {
  it('collects the operator allow-list, repeatable', () => {
    const { server } = serve([
      ...IMAGE,
      '--allow-host',
      'registry.npmjs.org',
      '--allow-host',
      '10.0.0.5:8080',
    ]);
    expect(server.allowHosts).toEqual(['registry.npmjs.org', '10.0.0.5:8080']);
    expect(serve(IMAGE).server.allowHosts).toBeUndefined();
    expect(CLI_USAGE).toContain('--allow-host <host[:port]>');
  });

  it('names the flag for an empty value or the swarm backend', () => {
    expect(usageError([...IMAGE, '--allow-host', ''])).toContain('--allow-host');
    expect(
      usageError([...IMAGE, '--backend', 'swarm', '--allow-host', 'registry.npmjs.org']),
    ).toContain('--allow-host applies to --backend docker only');
  });
});

describe('--allow-bind', () => {
  it('collects the allowed bind sources, repeatable', () => {
    const { server } = serve([...IMAGE, '--allow-bind', '/srv/a', '--allow-bind', 'rel/b']);
    expect(server.allowedBindSources).toEqual(['/srv/a', 'rel/b']);
    expect(serve(IMAGE).server.allowedBindSources).toBeUndefined();
    expect(CLI_USAGE).toContain('--allow-bind <dir>');
  });

  it('names the flag for an empty value', () => {
    expect(usageError([...IMAGE, '--allow-bind', ''])).toContain('--allow-bind');
  });
});
