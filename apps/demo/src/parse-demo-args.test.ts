import { describe, expect, it } from 'vitest';
import { DEMO_USAGE, type DemoArgs, DemoUsageError, parseDemoArgs } from './parse-demo-args.js';

/** Parses `argv` with no LLM_* variables; fails the test on `help`. */
function parsed(...argv: string[]): DemoArgs {
  const args = parseDemoArgs(argv, {});
  if (args === 'help') throw new Error('expected flags, got help');
  return args;
}

function usageError(...argv: string[]): string {
  try {
    parseDemoArgs(argv, {});
  } catch (error) {
    expect(error).toBeInstanceOf(DemoUsageError);
    return (error as Error).message;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
}

describe('parseDemoArgs', () => {
  it('defaults to a local, scripted run without the page', () => {
    expect(parsed()).toEqual({
      workspace: 'local',
      host: undefined,
      apiKey: undefined,
      workingDir: undefined,
      model: undefined,
      baseUrl: undefined,
      maxRetries: 2,
      retryWaitMs: 1000,
      keep: false,
      ui: false,
      port: 0,
    });
  });

  it('takes --ui with a free port by default, or the --port given, also after pnpm’s --', () => {
    expect(parsed('--ui')).toMatchObject({ workspace: 'local', ui: true, port: 0 });
    expect(parsed('--', '--ui', '--port', '3000', '--keep')).toMatchObject({
      ui: true,
      port: 3000,
      keep: true,
    });
    expect(parsed('--ui', '--working-dir', '/tmp/here')).toMatchObject({
      ui: true,
      workingDir: '/tmp/here',
    });
  });

  it('refuses --ui on a docker or remote workspace, and --port without --ui', () => {
    expect(usageError('--ui', '--workspace', 'docker')).toBe(
      '--ui runs its own agent-server on this machine: it works with --workspace local only, not docker',
    );
    expect(usageError('--ui', '--workspace', 'remote', '--host', 'http://127.0.0.1:8000')).toMatch(
      /--workspace local only, not remote$/,
    );
    expect(usageError('--port', '3000')).toBe('--port is for --ui');
  });

  it('names a bad --port', () => {
    expect(usageError('--ui', '--port', '70000')).toBe(
      '--port must be an integer from 0 to 65535, got "70000"',
    );
    expect(usageError('--ui', '--port', 'http')).toMatch(/^--port must be an integer/);
    expect(usageError('--ui', '--port')).toBe('--port needs a value');
    expect(usageError('--ui=yes')).toBe('--ui takes no value');
  });

  it('takes the model from LLM_MODEL and checks the remote flags', () => {
    expect(parseDemoArgs([], { LLM_MODEL: 'openai/gpt-4o-mini' })).toMatchObject({
      model: 'openai/gpt-4o-mini',
    });
    expect(usageError('--workspace', 'remote')).toMatch(/needs --host/);
    expect(usageError('--host', 'http://127.0.0.1:8000')).toBe('--host is for --workspace remote');
  });

  it('lists --ui and --port in the usage', () => {
    expect(parseDemoArgs(['--help'], {})).toBe('help');
    expect(DEMO_USAGE).toMatch(/^ {2}--ui {2,}run it in an agent-server on 127\.0\.0\.1/m);
    expect(DEMO_USAGE).toMatch(/^ {2}--port <n> .* 0 \(a free one\)$/m);
  });
});
