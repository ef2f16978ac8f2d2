import { describe, expect, it } from 'vitest';
import { LineEditor } from './terminal-line-editor.js';

describe('LineEditor', () => {
  it('echoes printable characters and enters the line on Enter', () => {
    const editor = new LineEditor();
    expect(editor.input('ls -l')).toEqual([{ kind: 'echo', text: 'ls -l' }]);
    expect(editor.line).toBe('ls -l');
    expect(editor.input('\r')).toEqual([
      { kind: 'echo', text: '\r\n' },
      { kind: 'line', text: 'ls -l' },
    ]);
    expect(editor.line).toBe('');
  });

  it('erases with Backspace (a whole code point) and Ctrl+U, and not past the start', () => {
    const editor = new LineEditor();
    editor.input('ab😀');
    expect(editor.input('\x7f')).toEqual([{ kind: 'echo', text: '\b \b' }]);
    expect(editor.line).toBe('ab');
    expect(editor.input('\x15')).toEqual([{ kind: 'echo', text: '\b \b\b \b' }]);
    expect(editor.input('\x7f')).toEqual([]);
    expect(editor.line).toBe('');
  });

  it('splits pasted text into lines, with CRLF or LF', () => {
    const editor = new LineEditor();
    const effects = editor.input('echo a\r\necho b\nec');
    expect(effects.filter((effect) => effect.kind === 'line')).toEqual([
      { kind: 'line', text: 'echo a' },
      { kind: 'line', text: 'echo b' },
    ]);
    expect(editor.line).toBe('ec');
  });

  it('drops the line on Ctrl+C and reports an interrupt', () => {
    const editor = new LineEditor();
    editor.input('sleep 3');
    expect(editor.input('\x03')).toEqual([{ kind: 'echo', text: '^C\r\n' }, { kind: 'interrupt' }]);
    expect(editor.line).toBe('');
  });

  it('reports end of input on Ctrl+D only on an empty line', () => {
    const editor = new LineEditor();
    expect(editor.input('\x04')).toEqual([{ kind: 'eof' }]);
    editor.input('x');
    expect(editor.input('\x04')).toEqual([]);
    expect(editor.line).toBe('x');
  });

  it('walks the history with Up and Down and restores the draft', () => {
    const editor = new LineEditor();
    editor.input('one\rtwo\r\rtwo\r');
    editor.input('dr');
    expect(editor.input('\x1b[A')).toEqual([{ kind: 'echo', text: '\b \b\b \btwo' }]);
    expect(editor.input('\x1bOA')).toEqual([{ kind: 'echo', text: '\b \b\b \b\b \bone' }]);
    // Past the oldest line nothing happens.
    expect(editor.input('\x1b[A')).toEqual([]);
    editor.input('\x1b[B\x1b[B');
    expect(editor.line).toBe('dr');
    expect(editor.input('\x1b[B')).toEqual([]);
  });

  it('keeps at most maxHistory lines', () => {
    const editor = new LineEditor({ maxHistory: 2 });
    editor.input('a\rb\rc\r');
    editor.input('\x1b[A\x1b[A\x1b[A');
    expect(editor.line).toBe('b');
  });

  it('ignores other escape sequences and control characters', () => {
    const editor = new LineEditor();
    expect(editor.input('a\x1b[D\x1b[1;5C\x1b[15~\t\x01\x1bxb')).toEqual([
      { kind: 'echo', text: 'ab' },
    ]);
    expect(editor.line).toBe('ab');
  });
});
