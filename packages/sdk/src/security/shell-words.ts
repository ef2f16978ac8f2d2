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
]);

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
    // Options of the prefix (and a duration for `timeout`).
    while (index < words.length && /^(?:-|\d+[smhd]?$)/.test(words[index]!)) index += 1;
  }
  const rest = words.slice(index);
  if (rest.length > 0) rest[0] = rest[0]!.split('/').pop() ?? rest[0]!;
  return { words: rest, privileged };
}
