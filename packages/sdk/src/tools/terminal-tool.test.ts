import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolTempWorkspace } from '../test-support/tool-temp-workspace.js';
import { TerminalTool, terminalArgsSchema } from './terminal-tool.js';
import { MAX_MODEL_TEXT_CHARS } from './truncate-for-model.js';

describe('TerminalTool', () => {
  it('runs a command in the working directory and reports its exit code', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    const result = await terminal.execute({ command: 'echo hello; pwd' }, t.context);
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      `hello\n${t.dir}\n[The command completed with exit code 0.]\n[Current working directory: ${t.dir}]`,
    );
    expect(result.content).toEqual({
      command: 'echo hello; pwd',
      exit_code: 0,
      output: `hello\n${t.dir}\n`,
      timeout: false,
    });
  });

  it('keeps the working directory between calls', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    await terminal.execute(
      { command: 'mkdir -p "dir with space/sub" && cd "dir with space/sub"' },
      t.context,
    );
    const result = await terminal.execute({ command: 'pwd' }, t.context);
    const expected = path.join(t.dir, 'dir with space/sub');
    expect(result.content.output).toBe(`${expected}\n`);
    expect(result.text).toContain(`[Current working directory: ${expected}]`);
    expect(terminal.cwd).toBe(expected);
  });

  it('keeps exported variables, multi-line values and unsets between calls', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    await terminal.execute(
      { command: `export GREETING='hi "there" $HOME'; export MULTI=$'a\\nb'; export GONE=1` },
      t.context,
    );
    await terminal.execute({ command: 'unset GONE; NOT_EXPORTED=1' }, t.context);
    const result = await terminal.execute(
      {
        command: `printf "%s|%s|%s|%s" "$GREETING" "$MULTI" "\${GONE-unset}" "\${NOT_EXPORTED-unset}"`,
      },
      t.context,
    );
    expect(result.content.output).toBe('hi "there" $HOME|a\nb|unset|unset');
  });

  it('keeps a variable of the environment it started with unset once a call unsets it', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    // A variable the commands inherit (bash itself sets PWD, SHLVL, OLDPWD and _ again).
    const listed = await terminal.execute(
      { command: 'compgen -e | grep -vx -e PWD -e SHLVL -e OLDPWD -e _ | head -n 1' },
      t.context,
    );
    const name = String(listed.content.output).trim();
    expect(name).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
    await terminal.execute({ command: `unset ${name}` }, t.context);
    const result = await terminal.execute(
      { command: `printf '%s' "\${${name}-unset}"` },
      t.context,
    );
    expect(result.content.output).toBe('unset');
  });

  it('restores only what changed, to exactly the exports the last command left', async () => {
    await using t = await toolTempWorkspace();
    // The real workspace, with how each command was told to restore noted down.
    const restores: string[] = [];
    const workspace = new Proxy(t.workspace, {
      get(target, key, receiver) {
        if (key !== 'executeCommand') return Reflect.get(target, key, receiver);
        return (command: string, options?: { env?: Record<string, string> }) => {
          const env = options?.env ?? {};
          restores.push(
            env.AW_TERMINAL_UNSET !== undefined
              ? 'delta'
              : env.AW_TERMINAL_STATE !== undefined
                ? 'all'
                : 'none',
          );
          return target.executeCommand(command, options);
        };
      },
    });
    const context = { workspace };
    const terminal = new TerminalTool();
    const run = async (command: string) =>
      String((await terminal.execute({ command }, context)).content.output);
    // Exports a command leaves (written by the command itself, as it ends) against the ones the
    // next command starts with.
    const steps = [
      `export TRICKY='a "b" $c \\d' MULTI=$'x\ny'; mkdir -p sub && cd sub`,
      'unset HOME; export PATH="$PATH:/nowhere"; cd -',
      'export -n TRICKY; export EMPTY=',
    ];
    for (const [index, step] of steps.entries()) {
      await run(`${step}; export -p > ${t.dir}/left-${index}`);
      await run(`export -p > ${t.dir}/found-${index}`);
      expect(await run(`cmp ${t.dir}/left-${index} ${t.dir}/found-${index} && echo same`)).toBe(
        'same\n',
      );
    }
    expect(await run(`printf "%s|%s|%s" "\${TRICKY-unset}" "\${HOME-unset}" "$PWD"`)).toBe(
      `unset|unset|${t.dir}`,
    );
    // The first command restores nothing, every later one only the difference.
    expect(restores[0]).toBe('none');
    expect(new Set(restores.slice(1))).toEqual(new Set(['delta']));
  });

  it('keeps `cd -` working across calls', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    await terminal.execute({ command: 'mkdir a b && cd a' }, t.context);
    await terminal.execute({ command: 'cd ../b' }, t.context);
    const result = await terminal.execute({ command: 'cd - >/dev/null && pwd' }, t.context);
    expect(result.content.output).toBe(`${path.join(t.dir, 'a')}\n`);
  });

  it('keeps the state of a command that ends with `exit`', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    const failed = await terminal.execute(
      { command: 'mkdir x && cd x && export CODE=7 && exit 3' },
      t.context,
    );
    expect(failed.content.exit_code).toBe(3);
    expect(failed.text).toContain('[The command completed with exit code 3.]');
    const result = await terminal.execute({ command: 'echo "$CODE $(pwd)"' }, t.context);
    expect(result.content.output).toBe(`7 ${path.join(t.dir, 'x')}\n`);
  });

  it('says so when the saved working directory is gone, and runs in the workspace', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    await terminal.execute({ command: 'mkdir doomed && cd doomed' }, t.context);
    await t.workspace.executeCommand('rmdir doomed');
    const result = await terminal.execute({ command: 'pwd' }, t.context);
    expect(result.content.output).toBe(
      `[The previous working directory ${path.join(t.dir, 'doomed')} is gone; running in ${t.dir}.]\n${t.dir}\n`,
    );
    expect(terminal.cwd).toBe(t.dir);
  });

  it('reports a non-zero exit code with stderr merged in order', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    const result = await terminal.execute(
      { command: 'echo out1; echo err1 >&2; echo out2; ls /no/such/path' },
      t.context,
    );
    expect(result.isError).toBe(false);
    expect(result.content.exit_code).toBe(2);
    expect(result.content.output).toMatch(/^out1\nerr1\nout2\nls: .*\/no\/such\/path.*\n$/);
    expect(result.text).toContain('[The command completed with exit code 2.]');
  });

  it('reports a syntax error as output and keeps the session usable', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    await terminal.execute({ command: 'export KEEP=yes' }, t.context);
    const broken = await terminal.execute({ command: 'echo "unclosed' }, t.context);
    expect(broken.content.exit_code).not.toBe(0);
    expect(broken.content.output).toMatch(/unexpected EOF|matching/);
    const result = await terminal.execute({ command: 'echo $KEEP' }, t.context);
    expect(result.content.output).toBe('yes\n');
  });

  it('never shows the state it records', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    await terminal.execute({ command: 'export SECRETISH=value' }, t.context);
    const result = await terminal.execute({ command: 'printf "no newline"' }, t.context);
    expect(result.content.output).toBe('no newline');
    expect(result.text).not.toMatch(/declare -x|__AW_TERMINAL_/);
    const env = await terminal.execute({ command: 'env' }, t.context);
    expect(env.content.output).not.toMatch(/AW_TERMINAL/);
    expect(env.content.output).toContain('SECRETISH=value');
  });

  it('forgets the working directory and variables on reset', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    await terminal.execute({ command: 'mkdir sub && cd sub && export FOO=bar' }, t.context);
    const reset = await terminal.execute({ command: '', reset: true }, t.context);
    expect(reset.text).toMatch(/^Terminal session has been reset/);
    expect(reset.content).toMatchObject({ command: '[RESET]', exit_code: 0 });
    expect(terminal.cwd).toBeUndefined();
    const result = await terminal.execute({ command: `echo "\${FOO-none} $(pwd)"` }, t.context);
    expect(result.content.output).toBe(`none ${t.dir}\n`);
  });

  it('runs the command of a reset call in the fresh session', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    await terminal.execute({ command: 'export FOO=bar' }, t.context);
    const result = await terminal.execute(
      { command: `echo "\${FOO-none}"`, reset: true },
      t.context,
    );
    expect(result.text).toMatch(
      /^Terminal session has been reset.*\n\nnone\n\[The command completed with exit code 0\.\]/s,
    );
  });

  it('stops a command at its timeout and keeps the previous state', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    await terminal.execute({ command: 'mkdir keep && cd keep' }, t.context);
    const result = await terminal.execute(
      { command: 'echo started; cd /; sleep 30', timeout: 0.5 },
      t.context,
    );
    expect(result.isError).toBe(false);
    expect(result.content).toMatchObject({ exit_code: -1, timeout: true, output: 'started\n' });
    expect(result.text).toContain('[The command timed out after 0.5 seconds and was stopped');
    const after = await terminal.execute({ command: 'pwd' }, t.context);
    expect(after.content.output).toBe(`${path.join(t.dir, 'keep')}\n`);
  });

  it('refuses is_input with an error observation', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    const result = await terminal.execute({ command: 'y', is_input: true }, t.context);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/Cannot send input to a running process \(`is_input`\)/);
    expect(result.content).toMatchObject({ command: 'y', exit_code: null });
  });

  it('refuses an empty command without reset', async () => {
    await using t = await toolTempWorkspace();
    const result = await new TerminalTool().execute({ command: '  ' }, t.context);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^No command given/);
  });

  it('truncates a large output for the model and keeps it whole in content', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    const result = await terminal.execute(
      { command: 'echo FIRST; head -c 100000 /dev/zero | tr "\\0" a; echo; echo LAST' },
      t.context,
    );
    const output = result.content.output as string;
    expect(output).toHaveLength('FIRST\n'.length + 100_000 + '\nLAST\n'.length);
    expect(result.text.length).toBeLessThan(MAX_MODEL_TEXT_CHARS + 200);
    expect(result.text).toMatch(
      /^FIRST\na+\n<response clipped: \d+ characters omitted\.>\na+\nLAST\n\[The command completed with exit code 0\.\]/,
    );
  });

  it('keeps output with characters that look like its own framing', async () => {
    await using t = await toolTempWorkspace();
    const terminal = new TerminalTool();
    const result = await terminal.execute(
      { command: `printf '%s\\n' 'déjà vu ✓' "declare -x X=\\"1\\"" ''` },
      t.context,
    );
    expect(result.content.output).toBe('déjà vu ✓\ndeclare -x X="1"\n\n');
  });

  it('has OpenHands argument names in its JSON Schema', () => {
    const schema = terminalArgsSchema.toJSONSchema({ io: 'input' }) as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(schema.properties).sort()).toEqual([
      'command',
      'is_input',
      'reset',
      'timeout',
    ]);
    expect(schema.required).toEqual(['command']);
  });

  it('is one session per instance', async () => {
    await using t = await toolTempWorkspace();
    const first = new TerminalTool();
    const second = new TerminalTool();
    await first.execute({ command: 'mkdir one && cd one' }, t.context);
    const result = await second.execute({ command: 'pwd' }, t.context);
    expect(result.content.output).toBe(`${await realpath(t.dir)}\n`);
  });
});
