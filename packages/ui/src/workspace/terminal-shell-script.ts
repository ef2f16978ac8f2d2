import { SHELL_MARK_OSC } from './terminal-output-parser.js';

/**
 * The long-lived shell behind the terminal (run with `bash -c`, stdin open): it reads one line at
 * a time from stdin and `eval`s it in the same shell (inside a function), so `cd` and variables
 * persist, then prints a mark with the status and working directory (see `TerminalOutputParser`).
 * A command started by a line reads the following stdin lines itself (as `read` or `cat` would in
 * a terminal). Ctrl+C (SIGINT to the process group) ends the running command and the rest of the
 * line (a loop too), with status 130; between lines it is ignored. End of input (`close_stdin`)
 * or `exit` ends the shell.
 */
export const TERMINAL_SHELL_SCRIPT = [
  'trap : INT',
  `__aw_mark() { printf '\\033]${SHELL_MARK_OSC};%s;%s;%s\\007' "$1" "$2" "$PWD"; }`,
  '__aw_run() {',
  "  trap 'trap : INT; return 130' INT",
  '  eval "$__aw_line"',
  '  set -- "$?"',
  '  trap : INT',
  '  return "$1"',
  '}',
  '__aw_mark ready 0',
  'while :; do',
  '  IFS= read -r __aw_line || { [ $? -gt 128 ] && continue; break; }',
  '  __aw_run',
  '  __aw_mark done $?',
  'done',
].join('\n');
