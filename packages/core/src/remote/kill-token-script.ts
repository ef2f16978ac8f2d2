import { shellQuote } from '../internal/process/shell-quote.js';
import { COMMAND_TOKEN_VARIABLE } from './wrap-polled-command.js';

/**
 * A POSIX `sh` script that kills every process whose environment carries the command `token`
 * (see `wrapPolledCommand`), for servers without a kill operation (the plain OpenHands
 * protocol). Each round freezes the marked processes with SIGSTOP so none can fork away, kills
 * the process groups they lead, then kills them; it repeats until none is left. Needs Linux
 * `/proc` and `grep -z`; elsewhere it does nothing and the server-side timeout still applies.
 */
export function killTokenScript(token: string): string {
  const marker = shellQuote(`${COMMAND_TOKEN_VARIABLE}=${token}`);
  return [
    `t=${marker}`,
    'for round in 1 2 3 4 5; do',
    '  pids=$(grep -lzxF -- "$t" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr "\\n" " ")',
    '  [ -n "$pids" ] || exit 0',
    '  kill -STOP $pids 2>/dev/null',
    '  for p in $pids; do',
    '    { read -r s < "/proc/$p/stat"; } 2>/dev/null || continue',
    // Fields after "(comm) " are: state ppid pgrp ...; kill a group only if we marked its leader.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    '    set -- ${s##*) }',
    '    case " $pids " in *" $3 "*) kill -KILL -- "-$3" 2>/dev/null ;; esac',
    '  done',
    '  kill -KILL $pids 2>/dev/null',
    '  sleep 0.05',
    'done',
  ].join('\n');
}
