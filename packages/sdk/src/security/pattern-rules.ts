import { codeFindings, credentialFindings, fetchAndExecuteInText } from './content-findings.js';
import { isBroadGlob, type PathScope, pathScope } from './path-scope.js';
import type { ActionFacts, PatternRuleId, RuleFinding, RuleRisk } from './pattern-rule-table.js';
import {
  programWords,
  type ShellCommand,
  shellOfPython,
  splitShellCommands,
  substitutedCommands,
} from './shell-words.js';

/** Most nested `bash -c` / `eval` strings followed. */
const MAX_NESTING = 3;

const SHELLS = /^(?:ba|z|da|k|fi|c|tc)?sh$/;
const INTERPRETERS = /^(?:(?:ba|z|da|k|fi)?sh|python[0-9.]*|perl|ruby|node|php|lua|pwsh)$/;
// A name starts where no word character precedes it: tried from inside a long word, `\w+` would
// backtrack through the rest of it at every position (quadratic in the word's length).
const FORK_BOMB = /(?<![\w:])(\w+|:)\(\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}\s*;\s*\1/;
const FETCHERS = /^(?:curl|wget|fetch|aria2c|http|https|xh|lwp-download)$/;

/** Applies every rule to the facts of one action. */
export function applyPatternRules(facts: ActionFacts): RuleFinding[] {
  const findings: RuleFinding[] = [];
  const shell = expandShell(facts);
  for (const line of shell) {
    findings.push(...fetchAndExecuteInText(line));
    if (FORK_BOMB.test(line))
      findings.push({ rule: 'system-control', risk: 'HIGH', detail: 'a fork bomb' });
    const commands = splitShellCommands(line);
    commands.forEach((command, index) => {
      findings.push(...commandFindings(command, commands, index, facts));
    });
  }
  for (const code of facts.code) findings.push(...codeFindings(code));
  for (const target of facts.writes) {
    findings.push(...writeFinding(target, facts.workingDir, 'the file editor writes'));
    findings.push(...credentialFindings(target));
  }
  for (const target of facts.reads) findings.push(...credentialFindings(target));
  for (const text of [...shell, ...facts.code]) findings.push(...credentialFindings(text));
  return findings;
}

/**
 * The shell lines of the action and those nested in `bash -c`, `eval`, `su -c`… strings, `$(…)`
 * and backquotes, and `python -c` code's `os.system` / `subprocess` strings.
 */
function expandShell(facts: ActionFacts): string[] {
  const lines: string[] = [];
  let level = [...facts.shell];
  for (let depth = 0; depth <= MAX_NESTING && level.length > 0; depth += 1) {
    lines.push(...level);
    const next: string[] = [];
    for (const line of level) {
      next.push(...substitutedCommands(line));
      for (const command of splitShellCommands(line)) {
        const { words } = programWords(command);
        const program = words[0] ?? '';
        const flag = words.indexOf('-c');
        if ((SHELLS.test(program) || program === 'su') && flag > 0 && words[flag + 1]) {
          next.push(words[flag + 1]!);
        } else if (program === 'eval' && words.length > 1) next.push(words.slice(1).join(' '));
        else if (/^python[0-9.]*$/.test(program) && flag > 0 && words[flag + 1]) {
          facts.code.push(words[flag + 1]!);
          next.push(...shellOfPython(words[flag + 1]!)); // its os.system / subprocess strings
        } else if (program === 'node' && /^(?:-e|--eval|-p)$/.test(words[1] ?? '') && words[2]) {
          facts.code.push(words[2]);
        }
      }
    }
    level = next;
  }
  return lines;
}

function commandFindings(
  command: ShellCommand,
  all: readonly ShellCommand[],
  index: number,
  facts: ActionFacts,
): RuleFinding[] {
  const { workingDir } = facts;
  const { words, privileged } = programWords(command);
  const program = words[0] ?? '';
  const args = words.slice(1);
  const options = args.filter((arg) => arg.startsWith('-'));
  const operands = args.filter((arg) => !arg.startsWith('-'));
  const findings: RuleFinding[] = [];
  const add = (rule: PatternRuleId, risk: RuleRisk, detail: string): void => {
    findings.push({ rule, risk, detail });
  };

  for (const target of command.writes) {
    findings.push(...writeFinding(target, workingDir, 'output is redirected'));
  }
  if (privileged || program === 'su') add('privilege-escalation', 'MEDIUM', `${program} as root`);

  if (/^mkfs(?:\.\w+)?$/.test(program)) add('disk-overwrite', 'HIGH', program);
  switch (program) {
    case 'rm':
    case 'shred':
    case 'unlink':
    case 'rmdir': {
      const recursive = options.some((o) => /^-[a-zA-Z]*[rR]/.test(o) || o === '--recursive');
      if (options.includes('--no-preserve-root')) {
        add('destructive-delete', 'HIGH', `${program} --no-preserve-root`);
      }
      for (const target of operands) {
        const scope = pathScope(target, workingDir);
        if (scope === 'system' || isBroadGlob(target)) {
          add('destructive-delete', 'HIGH', `${program} of ${describeTarget(target, scope)}`);
        } else if (scope === 'outside') {
          add(
            recursive ? 'destructive-delete' : 'write-outside-workdir',
            recursive ? 'HIGH' : 'MEDIUM',
            `${program} outside the working directory`,
          );
        }
      }
      break;
    }
    case 'find':
      if (args.includes('-delete') || (args.includes('-exec') && args.includes('rm'))) {
        const root = operands[0] ?? '.';
        const scope = pathScope(root, workingDir);
        if (scope !== 'inside' && scope !== 'scratch') {
          add('destructive-delete', 'HIGH', `find -delete under ${describeTarget(root, scope)}`);
        }
      }
      break;
    case 'dd': {
      const output = args.find((arg) => arg.startsWith('of='))?.slice(3);
      if (output?.startsWith('/dev/') && pathScope(output, workingDir) !== 'scratch') {
        add('disk-overwrite', 'HIGH', `dd onto the device ${output}`);
      } else if (output !== undefined) {
        findings.push(...writeFinding(output, workingDir, 'dd writes'));
      }
      break;
    }
    case 'wipefs':
    case 'mkswap':
    case 'mke2fs':
      add('disk-overwrite', 'HIGH', program);
      break;
    case 'fdisk':
    case 'sfdisk':
    case 'gdisk':
    case 'parted':
      if (operands.some((target) => target.startsWith('/dev/'))) {
        add('disk-overwrite', 'HIGH', `${program} of a device`);
      }
      break;
    case 'git':
      findings.push(...gitFindings(args));
      break;
    case 'chmod':
    case 'chown':
    case 'chgrp': {
      const recursive = options.some((o) => /^-[a-zA-Z]*R/.test(o) || o === '--recursive');
      const mode = program === 'chmod' ? operands[0] : undefined;
      const targets = operands.slice(1);
      if (recursive && mode !== undefined && isWorldWritable(mode)) {
        add('permissions-opened', 'HIGH', `chmod -R ${mode}`);
      }
      for (const target of targets) {
        const scope = pathScope(target, workingDir);
        if (scope === 'system' || (recursive && scope === 'outside')) {
          add('permissions-opened', 'HIGH', `${program} of ${describeTarget(target, scope)}`);
        } else if (scope === 'outside') {
          add('write-outside-workdir', 'MEDIUM', `${program} outside the working directory`);
        }
      }
      break;
    }
    case 'shutdown':
    case 'reboot':
    case 'halt':
    case 'poweroff':
      add('system-control', 'HIGH', program);
      break;
    case 'init':
    case 'telinit':
      if (operands[0] === '0' || operands[0] === '6')
        add('system-control', 'HIGH', `${program} 0/6`);
      break;
    case 'systemctl':
      if (/^(?:poweroff|reboot|halt|kexec)$/.test(operands[0] ?? '')) {
        add('system-control', 'HIGH', `systemctl ${operands[0]}`);
      }
      break;
    case 'kill':
    case 'pkill':
      if (args[args.length - 1] === '-1') {
        add('system-control', 'HIGH', 'kill of every process (-1)');
      }
      break;
    case 'tee':
      for (const target of operands)
        findings.push(...writeFinding(target, workingDir, 'tee writes'));
      break;
    case 'cp':
    case 'mv':
    case 'install':
    case 'ln':
    case 'rsync':
    case 'scp': {
      const destination = destinationOf(args);
      if (destination !== undefined && !(program === 'rsync' || program === 'scp')) {
        findings.push(...writeFinding(destination, workingDir, `${program} writes`));
      } else if (destination !== undefined && !destination.includes(':')) {
        findings.push(...writeFinding(destination, workingDir, `${program} writes`));
      }
      break;
    }
    case 'touch':
    case 'mkdir':
    case 'truncate':
      for (const target of operands) {
        findings.push(...writeFinding(target, workingDir, `${program} writes`));
      }
      break;
    case 'sed':
    case 'perl':
      if (options.some((o) => /^-[a-zA-Z]*i/.test(o) || o.startsWith('--in-place'))) {
        for (const target of operands.slice(1)) {
          findings.push(...writeFinding(target, workingDir, `${program} -i writes`));
        }
      }
      break;
    default:
      break;
  }

  if (FETCHERS.test(program)) {
    const piped = all[index + 1];
    const next = piped?.joinedBy === '|' ? programWords(piped).words[0] : undefined;
    if (next !== undefined && INTERPRETERS.test(next)) {
      add('fetch-and-execute', 'HIGH', `${program} output piped to ${next}`);
    } else if (ranLater(all, index)) {
      add('fetch-and-execute', 'HIGH', `a file fetched by ${program} is run in the same line`);
    } else if (
      args.some((arg) => /^(?:https?|ftp):\/\//i.test(arg) || /^[\w.-]+\.\w+\//.test(arg))
    ) {
      add('network-fetch', 'MEDIUM', `${program} of a URL`);
    }
    for (const option of ['-o', '-O', '--output', '--output-document']) {
      const at = args.indexOf(option);
      const target = at >= 0 ? args[at + 1] : undefined;
      if (target !== undefined && target !== '-') {
        findings.push(...writeFinding(target, workingDir, `${program} writes`));
      }
    }
  }
  return findings;
}

/** True when a command after `index` runs a downloaded script (`sh x.sh`, `./x`, `chmod +x`). */
function ranLater(all: readonly ShellCommand[], index: number): boolean {
  return all.slice(index + 1).some((command) => {
    const { words } = programWords(command);
    const program = words[0] ?? '';
    if (INTERPRETERS.test(program) && words.length > 1 && !words[1]!.startsWith('-')) return true;
    if (program === 'chmod' && words.some((word) => /^[ugoa]*\+[rw]*x/.test(word))) return true;
    return /^\.\//.test(command.words[0] ?? '');
  });
}

function gitFindings(args: string[]): RuleFinding[] {
  const sub = args.find((arg) => !arg.startsWith('-'));
  const rest = args.slice(args.indexOf(sub ?? '') + 1);
  const findings: RuleFinding[] = [];
  if (sub === 'push') {
    if (
      rest.some((arg) => arg === '--force' || arg === '--mirror' || /^-[a-zA-Z]*f/.test(arg)) ||
      rest.some((arg) => arg.startsWith('+'))
    ) {
      findings.push({ rule: 'git-history-rewrite', risk: 'HIGH', detail: 'git push --force' });
    } else if (
      rest.some(
        (arg) => arg.startsWith('--force-with-lease') || arg === '--delete' || arg === '-d',
      ) ||
      rest.some((arg) => /^:[^/]/.test(arg))
    ) {
      findings.push({
        rule: 'git-history-rewrite',
        risk: 'MEDIUM',
        detail: 'git push that rewrites or deletes a remote branch',
      });
    }
  } else if (sub === 'reset' && rest.includes('--hard')) {
    findings.push({ rule: 'git-history-rewrite', risk: 'MEDIUM', detail: 'git reset --hard' });
  } else if (sub === 'clean' && rest.some((arg) => /^-[a-zA-Z]*f/.test(arg) || arg === '--force')) {
    findings.push({ rule: 'git-history-rewrite', risk: 'MEDIUM', detail: 'git clean -f' });
  }
  return findings;
}

/** The destination of cp/mv-like argument lists: `-t dir`, or the last operand of several. */
function destinationOf(args: string[]): string | undefined {
  const target = args.findIndex((arg) => arg === '-t' || arg === '--target-directory');
  if (target >= 0) return args[target + 1];
  const long = args.find((arg) => arg.startsWith('--target-directory='));
  if (long !== undefined) return long.slice('--target-directory='.length);
  const operands = args.filter((arg) => !arg.startsWith('-'));
  return operands.length >= 2 ? operands[operands.length - 1] : undefined;
}

function isWorldWritable(mode: string): boolean {
  if (/^0?[0-7]?[0-7][0-7][2367]$/.test(mode)) return true; // others may write
  return /(?:^|,)[ugo]*[ao][ugo]*[+=][rxXst]*w/.test(mode) || /(?:^|,)\+[rxXst]*w/.test(mode);
}

function writeFinding(target: string, workingDir: string, how: string): RuleFinding[] {
  const scope = pathScope(target, workingDir);
  if (scope === 'inside' || scope === 'scratch') return [];
  return [
    {
      rule: 'write-outside-workdir',
      risk: scope === 'system' ? 'HIGH' : 'MEDIUM',
      detail: `${how} ${describeTarget(target, scope)}`,
    },
  ];
}

function describeTarget(target: string, scope: PathScope): string {
  if (isBroadGlob(target)) return `the broad glob ${target}`;
  return scope === 'system' ? `${target} (a system or home directory)` : target;
}
