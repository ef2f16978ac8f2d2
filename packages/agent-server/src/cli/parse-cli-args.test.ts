import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliUsageError, parseCliArgs, SESSION_API_KEY_FLAG_WARNING } from './parse-cli-args.js';

describe('parseCliArgs', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agent-server-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('applies defaults', () => {
    expect(parseCliArgs([], {})).toEqual({
      kind: 'serve',
      options: {
        host: '127.0.0.1',
        port: 8000,
        workingDir: process.cwd(),
        sessionApiKeys: [],
        sessionApiKeyHashes: [],
        logLevel: 'info',
        confineToWorkingDir: false,
        allowCorsOrigins: [],
        extensions: true,
        ui: true,
        plugins: [],
      },
      warnings: [],
    });
  });

  it('reads the runtime plugin flags', () => {
    const command = parseCliArgs(
      [
        '--plugin',
        'browser',
        '--plugin=python',
        '--plugin-start-timeout-seconds',
        '30',
        '--action-timeout-seconds',
        '2.5',
        '--process-tree-memory-limit-bytes',
        '536870912',
      ],
      {},
    );
    expect(command).toMatchObject({
      options: {
        plugins: ['browser', 'python'],
        pluginStartTimeoutSeconds: 30,
        actionTimeoutSeconds: 2.5,
        processTreeMemoryLimitBytes: 536_870_912,
      },
    });
    expect(() => parseCliArgs(['--plugin', ''], {})).toThrow(/--plugin/);
    expect(() => parseCliArgs(['--process-tree-memory-limit-bytes', 'lots'], {})).toThrow(
      /--process-tree-memory-limit-bytes/,
    );
  });

  it('reads every flag, repeated keys and the environment in order', () => {
    const command = parseCliArgs(
      [
        '--host=0.0.0.0',
        '--port',
        '0',
        '--working-dir',
        dir,
        '--session-api-key',
        'flag-a',
        '--session-api-key=flag-b',
        '--state-dir',
        'state',
        '--log-level',
        'debug',
        '--confine-to-working-dir',
        '--max-upload-bytes',
        '1024',
        '--allow-cors-origin',
        'https://app.example.com',
        '--no-extensions',
        '--no-ui',
      ],
      {
        SESSION_API_KEY: 'legacy',
        OH_SESSION_API_KEYS_10: 'env-10',
        OH_SESSION_API_KEYS_2: 'env-2',
        OH_SESSION_API_KEYS_X: 'ignored',
        OH_ALLOW_CORS_ORIGINS_0: 'https://other.example.com',
      },
    );
    expect(command).toEqual({
      kind: 'serve',
      options: {
        host: '0.0.0.0',
        port: 0,
        workingDir: dir,
        sessionApiKeys: ['flag-a', 'flag-b', 'legacy', 'env-2', 'env-10'],
        sessionApiKeyHashes: [],
        stateDir: path.resolve('state'),
        logLevel: 'debug',
        confineToWorkingDir: true,
        maxUploadBytes: 1024,
        allowCorsOrigins: ['https://app.example.com', 'https://other.example.com'],
        extensions: false,
        ui: false,
        plugins: [],
      },
      warnings: [SESSION_API_KEY_FLAG_WARNING],
    });
  });

  it('warns once about keys on the command line, never about keys in the environment', () => {
    const fromEnvironment = parseCliArgs([], { SESSION_API_KEY: 'env-key' });
    expect(fromEnvironment).toMatchObject({
      options: { sessionApiKeys: ['env-key'] },
      warnings: [],
    });
    const fromFlags = parseCliArgs(['--session-api-key', 'key-a', '--session-api-key=key-b'], {});
    expect(fromFlags).toMatchObject({ warnings: [SESSION_API_KEY_FLAG_WARNING] });
    expect(SESSION_API_KEY_FLAG_WARNING).toContain('SESSION_API_KEY in the environment');
  });

  it('reads --defer-init and OH_DEFERRED_INIT (the flag wins) and refuses a bad variable', () => {
    expect(parseCliArgs(['--defer-init'], {})).toMatchObject({ options: { deferInit: true } });
    expect(parseCliArgs([], { OH_DEFERRED_INIT: 'True' })).toMatchObject({
      options: { deferInit: true },
    });
    for (const value of ['false', '0', '']) {
      expect(parseCliArgs([], { OH_DEFERRED_INIT: value })).not.toHaveProperty('options.deferInit');
    }
    expect(parseCliArgs(['--no-defer-init'], { OH_DEFERRED_INIT: '1' })).not.toHaveProperty(
      'options.deferInit',
    );
    expect(() => parseCliArgs([], { OH_DEFERRED_INIT: 'later' })).toThrow(
      "OH_DEFERRED_INIT must be true or false, got 'later'",
    );
  });

  it('reads a key digest from SESSION_API_KEY_SHA256 and refuses one that is no digest', () => {
    const digest = 'ab'.repeat(32);
    expect(parseCliArgs([], { SESSION_API_KEY_SHA256: digest })).toMatchObject({
      options: { sessionApiKeys: [], sessionApiKeyHashes: [digest] },
    });
    expect(() => parseCliArgs([], { SESSION_API_KEY_SHA256: 'secret' })).toThrow(
      'SESSION_API_KEY_SHA256 must be a SHA-256 digest (64 hex digits)',
    );
  });

  it('reads the limits and the sandbox flags', () => {
    const command = parseCliArgs(
      [
        '--max-connections=50',
        '--max-concurrent-commands',
        '7',
        '--max-command-history-bytes',
        '4096',
        '--max-history-bytes',
        '8192',
        '--request-timeout-seconds',
        '90',
        '--body-idle-timeout-seconds',
        '2.5',
        '--orphaned-command-grace-seconds',
        '0',
        '--git-search-max-depth',
        '3',
        '--git-search-max-repositories',
        '10',
        '--git-search-max-directories',
        '500',
        '--git-search-timeout-seconds',
        '0.5',
        '--runtime-dir',
        'runtime',
        '--sandbox',
        '--no-sandbox-network',
        '--sandbox-read-only',
        '/opt/tools',
        '--sandbox-writable',
        'cache',
      ],
      {},
    );
    expect(command).toMatchObject({
      options: {
        maxConnections: 50,
        maxConcurrentCommands: 7,
        maxCommandHistoryBytes: 4096,
        bashEventMaxBytes: 8192,
        requestTimeoutSeconds: 90,
        bodyIdleTimeoutSeconds: 2.5,
        orphanedCommandGraceSeconds: 0,
        gitSearchMaxDepth: 3,
        gitSearchMaxRepositories: 10,
        gitSearchMaxDirectories: 500,
        gitSearchTimeoutSeconds: 0.5,
        runtimeDir: path.resolve('runtime'),
        sandbox: {
          network: false,
          readOnlyPaths: ['/opt/tools'],
          writablePaths: [path.resolve('cache')],
        },
      },
    });
  });

  it('skips the `--` that pnpm passes through', () => {
    expect(parseCliArgs(['--', '--port', '9000'], {})).toMatchObject({ options: { port: 9000 } });
  });

  it('turns --allow-host into a sandbox with an egress allow-list', () => {
    const command = parseCliArgs(
      ['--allow-host', 'registry.npmjs.org', '--allow-host', '127.0.0.1:8080'],
      {},
    );
    expect(command).toMatchObject({
      kind: 'serve',
      options: {
        sandbox: { network: true, allowHosts: ['registry.npmjs.org', '127.0.0.1:8080'] },
      },
    });
  });

  it('answers help and version', () => {
    expect(parseCliArgs(['--help'], {})).toEqual({ kind: 'help' });
    expect(parseCliArgs(['-v'], {})).toEqual({ kind: 'version' });
  });

  it('names the flag of every bad input', () => {
    const cases: [string[], string][] = [
      [['--bogus'], "Unknown option '--bogus'"],
      [['--port'], "Option '--port <value>' argument missing"],
      [['--port', 'abc'], "--port must be an integer from 0 to 65535, got 'abc'"],
      [['--port', '65536'], "--port must be an integer from 0 to 65535, got '65536'"],
      [['--port', '-1'], "Option '--port' argument is ambiguous"],
      [['--port=-1'], "--port must be an integer from 0 to 65535, got '-1'"],
      [['--max-upload-bytes', '0'], '--max-upload-bytes must be an integer from 1 to'],
      [['--max-upload-bytes', '1.5'], '--max-upload-bytes must be an integer'],
      [['--log-level', 'loud'], '--log-level must be one of fatal, error, warn, info, debug'],
      [['--host', ''], '--host must not be empty'],
      [['--session-api-key', ''], '--session-api-key must not be empty'],
      [['--working-dir', path.join(dir, 'missing')], '--working-dir must be an existing directory'],
      [['serve'], "Unexpected argument 'serve'"],
      [['--extensions=false'], "Option '--extensions' does not take an argument"],
      [['--max-connections', '0'], '--max-connections must be an integer from 1 to'],
      [
        ['--body-idle-timeout-seconds', 'soon'],
        '--body-idle-timeout-seconds must be a number of seconds',
      ],
      [['--no-sandbox-network'], '--no-sandbox-network needs --sandbox'],
      [['--sandbox-writable', '/x'], '--sandbox-writable needs --sandbox'],
      [['--allow-host', ''], '--allow-host must not be empty'],
      [
        ['--conversation-max-event-bytes', '1000'],
        '--conversation-max-event-bytes must be at least',
      ],
      [
        ['--conversation-max-memory-bytes', '20000'],
        '--conversation-max-memory-bytes must be at least --conversation-max-event-bytes',
      ],
      [
        ['--conversation-max-disk-bytes', '1048576'],
        '--conversation-max-disk-bytes must be at least --conversation-max-memory-bytes',
      ],
      [
        ['--allow-host', 'example.com', '--sandbox', '--no-sandbox-network'],
        '--allow-host and --no-sandbox-network exclude each other',
      ],
    ];
    for (const [args, message] of cases) {
      expect(() => parseCliArgs(args, {}), args.join(' ')).toThrow(CliUsageError);
      expect(() => parseCliArgs(args, {}), args.join(' ')).toThrow(message);
    }
  });
});
