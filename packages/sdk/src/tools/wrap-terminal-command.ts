import { randomBytes } from 'node:crypto';
import { exportDelta } from './export-delta.js';

/** What a terminal keeps between calls: the working directory and the exported variables. */
export interface TerminalState {
  /** Working directory after the last command. */
  cwd: string;
  /** `export -p` output after the last command; `undefined` when it was too large to keep. */
  exports?: string | undefined;
}

/** Options of {@link wrapTerminalCommand}. */
export interface WrapTerminalCommandOptions {
  /** The command as the model wrote it (any bash, several lines included). */
  command: string;
  /** State to restore first; none for a fresh terminal. */
  state?: TerminalState | undefined;
  /**
   * Variables exported after the state is restored, so they win over it (the conversation's
   * secrets); names that are not environment variable names are left out.
   */
  secrets?: Readonly<Record<string, string>> | undefined;
  /**
   * The exports a previous command of this terminal started with, before any restore
   * (`unwrap`'s `fresh`): when given, only what differs from them is restored (the named
   * variables unset, the changed entries evaluated) instead of unsetting every variable.
   */
  fresh?: string | undefined;
}

/** A command ready for `executeCommand`, and how to read its standard output. */
export interface WrappedTerminalCommand {
  /** The script to run with `bash -c`. */
  script: string;
  /** Variables to pass with it: the command and the state travel here, never quoted. */
  env: Record<string, string>;
  /**
   * Splits the standard output into the command's own output and the state it left; `state` is
   * `undefined` when the epilogue did not run (timeout, killed shell, redirected stdout). From
   * the standard error it takes `fresh`, the exports the shell started with before any restore,
   * and leaves in `stderr` what else escaped the wrapper.
   */
  unwrap(
    stdout: string,
    stderr?: string,
  ): {
    output: string;
    state?: TerminalState | undefined;
    fresh?: string | undefined;
    stderr: string;
  };
}

/**
 * Every variable name, as bash expands `\${!A@} … \${!_@}` (names by first character): listed
 * without a subshell, where `$(compgen -e)` would fork one per command.
 */
const EVERY_VARIABLE = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_']
  .map((first) => `\${!${first}@}`)
  .join(' ');

/**
 * Wraps a terminal command so that cwd and exported variables survive from one `bash -c` to the
 * next, as in OpenHands' persistent shell. The command and the saved state are passed in
 * environment variables (no quoting, any characters), restored (`unset` of every exported
 * variable, `eval` of the saved `export -p`, `cd`), and the command runs through `eval` with
 * stderr joined to stdout, so the output interleaves as on a terminal. An `EXIT` trap, which
 * also runs after `exit N` or `set -e`, prints a random marker, `pwd` and `export -p`; `unwrap`
 * reads them from the end of stdout and strips them from what is shown. Before restoring, it
 * prints the exports the shell started with to stderr (`unwrap`'s `fresh`, also stripped);
 * given them back as `fresh`,
 * the next wrapper restores only what differs (unsets the variables the state lacks, evaluates
 * the changed entries) instead of unsetting every variable and evaluating the whole state. The
 * wrapper forks no subshell of its own (builtins only).
 *
 * Shell variables that are not exported, functions, aliases and `set` options do not persist.
 */
export function wrapTerminalCommand({
  command,
  state,
  secrets = {},
  fresh,
}: WrapTerminalCommandOptions): WrappedTerminalCommand {
  const marker = `__AW_TERMINAL_${randomBytes(12).toString('hex')}__`;
  const env: Record<string, string> = { AW_TERMINAL_COMMAND: command };
  if (state !== undefined) env.AW_TERMINAL_CWD = state.cwd;
  const delta =
    state?.exports === undefined || fresh === undefined
      ? undefined
      : exportDelta(fresh, state.exports);
  if (delta !== undefined) {
    env.AW_TERMINAL_STATE = delta.restore;
    // Checked names (`exportDelta` parses them as such): safe to expand unquoted.
    env.AW_TERMINAL_UNSET = delta.unset.join(' ');
  } else if (state?.exports !== undefined) env.AW_TERMINAL_STATE = state.exports;
  const secret = secretLines(secrets, env);
  const script = `${secret.take}__aw_command=$AW_TERMINAL_COMMAND
__aw_cwd=\${AW_TERMINAL_CWD-}
__aw_has_state=\${AW_TERMINAL_STATE+1}
__aw_state=\${AW_TERMINAL_STATE-}
__aw_delta=\${AW_TERMINAL_UNSET+1}
__aw_unset=\${AW_TERMINAL_UNSET-}
unset AW_TERMINAL_COMMAND AW_TERMINAL_CWD AW_TERMINAL_STATE AW_TERMINAL_UNSET
{ printf '%s\\n' '${marker}'; export -p; printf '%s\\n' '${marker}'; } >&2
if [ -n "$__aw_delta" ]; then
  unset -v $__aw_unset 2>/dev/null
  eval "$__aw_state" 2>/dev/null
elif [ -n "$__aw_has_state" ]; then
  for __aw_name in ${EVERY_VARIABLE}; do
    case \${!__aw_name@a} in *x*) unset "$__aw_name" 2>/dev/null ;; esac
  done
  eval "$__aw_state" 2>/dev/null
fi
${secret.give}if [ -n "$__aw_cwd" ]; then
  __aw_oldpwd=\${OLDPWD-}
  cd -- "$__aw_cwd" 2>/dev/null ||
    printf '[The previous working directory %s is gone; running in %s.]\\n' "$__aw_cwd" "$(pwd)"
  if [ -n "$__aw_oldpwd" ]; then OLDPWD=$__aw_oldpwd; fi
fi
unset __aw_cwd __aw_has_state __aw_state __aw_name __aw_oldpwd __aw_delta __aw_unset
__aw_finish() {
  __aw_status=$?
  { set +x; } 2>/dev/null
  trap - EXIT
  printf '\\n%s\\n' '${marker}'
  pwd 2>/dev/null || printf '\\n'
  printf '%s\\n' '${marker}'
  export -p
  printf '%s\\n' '${marker}'
  exit "$__aw_status"
}
trap __aw_finish EXIT
eval "$__aw_command" 2>&1
`;
  return {
    script,
    env,
    unwrap: (stdout, stderr = '') => {
      const { fresh: started, rest } = unwrapFresh(stderr, marker);
      return {
        ...unwrap(stdout, marker),
        ...(started === undefined ? {} : { fresh: started }),
        stderr: rest,
      };
    },
  };
}

/**
 * Script lines for secrets: each value travels in `AW_TERMINAL_SECRET_<i>` (added to `env`), is
 * moved into a shell variable first (`take`), and exported under its name once the state is
 * restored (`give`). Names are checked, so they are safe in the script.
 */
function secretLines(
  secrets: Readonly<Record<string, string>>,
  env: Record<string, string>,
): { take: string; give: string } {
  let take = '';
  let give = '';
  let index = 0;
  for (const [name, value] of Object.entries(secrets)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue;
    env[`AW_TERMINAL_SECRET_${index}`] = value;
    take += `__aw_secret_${index}=$AW_TERMINAL_SECRET_${index}; unset AW_TERMINAL_SECRET_${index}\n`;
    give += `export ${name}="$__aw_secret_${index}"; unset __aw_secret_${index}\n`;
    index += 1;
  }
  return { take, give };
}

/**
 * Reads `<M>\n<export -p><M>\n` from the start of stderr, where the wrapper writes it before the
 * command runs (the marker is random: no export holds it).
 */
function unwrapFresh(stderr: string, marker: string): { fresh?: string; rest: string } {
  const line = `${marker}\n`;
  if (!stderr.startsWith(line)) return { rest: stderr };
  const end = stderr.indexOf(line, line.length);
  if (end < 0) return { rest: stderr };
  return { fresh: stderr.slice(line.length, end), rest: stderr.slice(end + line.length) };
}

/** Reads `<output>\n<M>\n<cwd>\n<M>\n<export -p><M>\n` from the end, so output may hold anything. */
function unwrap(stdout: string, marker: string): { output: string; state?: TerminalState } {
  const separator = `\n${marker}\n`;
  const ending = `${marker}\n`;
  if (!stdout.endsWith(ending)) return { output: stdout };
  const body = stdout.slice(0, -ending.length);
  const exportsAt = body.lastIndexOf(separator);
  const cwdAt = exportsAt > 0 ? body.lastIndexOf(separator, exportsAt - 1) : -1;
  if (cwdAt < 0) return { output: stdout };
  return {
    output: body.slice(0, cwdAt),
    state: {
      cwd: body.slice(cwdAt + separator.length, exportsAt),
      exports: body.slice(exportsAt + separator.length),
    },
  };
}
