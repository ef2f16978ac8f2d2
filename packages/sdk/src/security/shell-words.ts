/** One simple command of a shell line: its words and the targets of its output redirections. */
export interface ShellCommand {
  /** The words, quotes removed (`$(...)` and backticks are kept as written). */
  words: string[];
  /** Where `>`, `>>`, `&>`, `2>`… send output (the word after the operator). */
  writes: string[];
  /** The operator that joins it to the previous command: `|` for a pipe, `''` for the first. */
  joinedBy: string;
}

const OPERATORS = ['&&', '||', ';;', '|&', '|', ';', '&', '\n', '(', ')'];

/**
 * Splits a shell line into simple commands, the way a cautious reader would: quotes (single,
 * double, `$'…'`) and backslashes are honoured, `&&`, `||`, `|`, `;`, `&`, newlines and
 * parentheses separate commands, and output redirections are collected per command. It is not a
 * shell: expansions are not performed and here-documents are read as words. Linear in the
 * length of `line`.
 */
export function splitShellCommands(line: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let current: ShellCommand = { words: [], writes: [], joinedBy: '' };
  let word = '';
  let inWord = false;
  let redirect = false;
  let i = 0;

  const endWord = (): void => {
    if (!inWord) return;
    if (redirect) {
      current.writes.push(word);
      redirect = false;
    } else current.words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = (operator: string): void => {
    endWord();
    if (current.words.length > 0 || current.writes.length > 0) commands.push(current);
    current = { words: [], writes: [], joinedBy: operator === '|' || operator === '|&' ? '|' : '' };
  };

  while (i < line.length) {
    const char = line[i]!;
    if (char === '\\' && i + 1 < line.length) {
      if (line[i + 1] !== '\n') {
        word += line[i + 1];
        inWord = true;
      }
      i += 2;
      continue;
    }
    if (char === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? line.length : end);
      inWord = true;
      i = end < 0 ? line.length : end + 1;
      continue;
    }
    if (char === '"') {
      i += 1;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length) {
          word += line[i + 1];
          i += 2;
        } else {
          word += line[i];
          i += 1;
        }
      }
      i += 1;
      inWord = true;
      continue;
    }
    if (char === '$' && line[i + 1] === '(') {
      // Command substitution: kept whole in the word (its inside is scanned by the text rules).
      let depth = 0;
      const start = i;
      for (; i < line.length; i += 1) {
        if (line[i] === '(') depth += 1;
        else if (line[i] === ')' && --depth === 0) break;
      }
      word += line.slice(start, i + 1);
      inWord = true;
      i += 1;
      continue;
    }
    if (char === '#' && !inWord) {
      const end = line.indexOf('\n', i);
      i = end < 0 ? line.length : end;
      continue;
    }
    if (char === ' ' || char === '\t') {
      endWord();
      i += 1;
      continue;
    }
    const redirection = /^(?:&>>|&>|>>|>\||>)/.exec(line.slice(i, i + 3));
    if (redirection !== null) {
      // `2>`: the digits before the operator name a descriptor, not a word.
      if (inWord && /^\d+$/.test(word)) {
        word = '';
        inWord = false;
      } else endWord();
      redirect = true;
      i += redirection[0].length;
      if (line[i] === '&') {
        // `2>&1`: a descriptor, not a file.
        redirect = false;
        i += 1;
        while (i < line.length && /[\d-]/.test(line[i]!)) i += 1;
      }
      continue;
    }
    if (char === '<') {
      endWord();
      i += 1;
      continue;
    }
    const operator = OPERATORS.find((op) => line.startsWith(op, i));
    if (operator !== undefined) {
      endCommand(operator);
      i += operator.length;
      continue;
    }
    word += char;
    inWord = true;
    i += 1;
  }
  endCommand('');
  return commands;
}

/** Words that run the command after them (`sudo rm …` is an `rm`). */
const PREFIXES = new Set([
  'sudo',
  'doas',
  'env',
  'nohup',
  'time',
  'nice',
  'ionice',
  'exec',
  'command',
  'builtin',
  'xargs',
  'timeout',
  'stdbuf',
  'busybox',
  // Shell keywords and grouping: `{ rm …; }`, `if …; then rm …`, `! rm …` run the `rm`.
  '{',
  '!',
  'if',
  'then',
  'else',
  'elif',
  'while',
  'until',
  'do',
]);

/** Options of a prefix that take the next word as their value (`sudo -u deploy rm …`). */
const PREFIX_OPTIONS_WITH_VALUE: Readonly<Record<string, ReadonlySet<string>>> = {
  sudo: new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '-R']),
  doas: new Set(['-u', '-C']),
  env: new Set(['-u', '-C', '-S']),
  nice: new Set(['-n']),
  ionice: new Set(['-c', '-n', '-p']),
  timeout: new Set(['-s', '-k']),
  xargs: new Set(['-I', '-n', '-P', '-d', '-L', '-s', '-a', '-E']),
};

/**
 * The words of `command` from the program actually run: prefixes (`sudo`, `env X=1`, `nohup`,
 * `timeout 5`, `xargs -0`…) and leading variable assignments are skipped; the program is given
 * by its base name (`/bin/rm` → `rm`).
 */
export function programWords(command: ShellCommand): { words: string[]; privileged: boolean } {
  const { words } = command;
  let index = 0;
  let privileged = false;
  while (index < words.length) {
    const current = words[index]!;
    const name = current.split('/').pop() ?? current;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(current)) {
      index += 1;
      continue;
    }
    if (!PREFIXES.has(name)) break;
    if (name === 'sudo' || name === 'doas') privileged = true;
    index += 1;
    // Options of the prefix, with their values (and a duration for `timeout`).
    const withValue = PREFIX_OPTIONS_WITH_VALUE[name];
    while (index < words.length && /^(?:-|\d+[smhd]?$)/.test(words[index]!)) {
      index += withValue?.has(words[index]!) ? 2 : 1;
    }
  }
  const rest = words.slice(index);
  if (rest.length > 0) rest[0] = rest[0]!.split('/').pop() ?? rest[0]!;
  return { words: rest, privileged };
}

/** The shell commands a Python cell runs: `!` lines, `%%bash` cells, `os.system("…")`… strings. */
export function shellOfPython(code: string): string[] {
  const lines: string[] = [];
  if (/^\s*%%(?:bash|sh|script)\b/.test(code)) lines.push(code.replace(/^\s*%%\S+[^\n]*\n?/, ''));
  for (const line of code.split('\n')) {
    const bang = /^\s*!(.*)$/.exec(line);
    if (bang !== null) lines.push(bang[1]!);
  }
  const call =
    /\b(?:os\.(?:system|popen|exec\w*|spawn\w*)|subprocess\.\w+|check_output|Popen)\s*\(/g;
  for (const match of code.matchAll(call)) {
    const rest = code.slice(match.index + match[0].length, match.index + match[0].length + 4096);
    const list = /^\s*\[([^\]]*)\]/.exec(rest);
    const strings = [...(list?.[1] ?? rest.split(')')[0] ?? '').matchAll(/[rbf]?(['"])(.*?)\1/g)];
    lines.push(strings.map((string) => string[2]).join(' '));
  }
  return lines;
}

/**
 * The command lines inside the outermost `$(…)` and backquotes of `line` (they run too); an
 * unclosed one reaches to the end of the line.
 */
export function substitutedCommands(line: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < line.length; i += 1) {
    if (line[i] === '`') {
      const end = line.indexOf('`', i + 1);
      found.push(line.slice(i + 1, end < 0 ? line.length : end));
      if (end < 0) break;
      i = end;
    } else if (line[i] === '$' && line[i + 1] === '(') {
      let depth = 0;
      let j = i + 1;
      for (; j < line.length; j += 1) {
        if (line[j] === '(') depth += 1;
        else if (line[j] === ')' && --depth === 0) break;
      }
      found.push(line.slice(i + 2, j));
      i = j;
    }
  }
  return found;
}
