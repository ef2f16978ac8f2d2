import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalCommand } from '../local/run-local-command.js';
import { COMMAND_TOKEN_VARIABLE, wrapPolledCommand } from './wrap-polled-command.js';

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(path.join(tmpdir(), 'wrap-polled-command-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

/** Runs `script` with `/bin/sh -c`, as an OpenHands server does. */
function runWithSh(script: string) {
  return runLocalCommand({
    command: script,
    cwd,
    env: {},
    timeoutMs: 10_000,
    maxOutputBytes: 1024 * 1024,
    shell: '/bin/sh',
  });
}

describe('wrapPolledCommand', () => {
  it('runs the command under bash with the env applied and the token exported', async () => {
    const command = `[[ -n "$BASH_VERSION" ]] && printf '%s|%s|%s' "$GREETING" "$QUOTED" "$${COMMAND_TOKEN_VARIABLE}"; exit 7`;
    const result = await runWithSh(
      wrapPolledCommand({
        command,
        env: { GREETING: 'hello world', QUOTED: `it's "$HOME" \`x\`\nline` },
        token: 'abc123',
      }),
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`hello world|it's "$HOME" \`x\`\nline|abc123`);
    expect(result.exitCode).toBe(7);
  });

  it('keeps the shell pid, so $$ is the process the server spawned', async () => {
    const result = await runWithSh(
      `echo $$; ${wrapPolledCommand({ command: 'echo $$', env: {}, token: 't' })}`,
    );
    const [outer, inner] = result.stdout.trim().split('\n');
    expect(inner).toBe(outer);
  });

  it('still finds bash when the env overrides PATH', async () => {
    const result = await runWithSh(
      wrapPolledCommand({ command: 'echo "$PATH"', env: { PATH: '/nowhere' }, token: 't' }),
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: '/nowhere\n' });
  });
});
