import { describe, expect, it } from 'vitest';
import { TerminalOutputParser } from './terminal-output-parser.js';

const mark = (body: string): string => `\x1b]6973;${body}\x07`;

describe('TerminalOutputParser', () => {
  it('splits text and marks', () => {
    const parser = new TerminalOutputParser();
    expect(parser.push(`hello\n${mark('done;2;/tmp/a b')}next`)).toEqual([
      { kind: 'text', text: 'hello\n' },
      { kind: 'mark', mark: { kind: 'done', exitCode: 2, cwd: '/tmp/a b' } },
      { kind: 'text', text: 'next' },
    ]);
  });

  it('holds back a mark split across chunks, wherever the split falls', () => {
    const whole = `out${mark('ready;0;/w')}after`;
    for (let split = 1; split < whole.length; split++) {
      const parser = new TerminalOutputParser();
      const parts = [...parser.push(whole.slice(0, split)), ...parser.push(whole.slice(split))];
      const text = parts.flatMap((part) => (part.kind === 'text' ? [part.text] : []));
      expect(text.join('')).toBe('outafter');
      expect(parts.filter((part) => part.kind === 'mark')).toEqual([
        { kind: 'mark', mark: { kind: 'ready', exitCode: 0, cwd: '/w' } },
      ]);
    }
  });

  it('shows other escape sequences and malformed marks as text', () => {
    const parser = new TerminalOutputParser();
    const colored = '\x1b[31mred\x1b[0m\x1b]0;title\x07';
    expect(parser.push(colored + mark('what;1;/'))).toEqual([
      { kind: 'text', text: colored },
      { kind: 'text', text: mark('what;1;/') },
    ]);
  });

  it('gives back an unfinished mark when flushed', () => {
    const parser = new TerminalOutputParser();
    expect(parser.push('a\x1b]69')).toEqual([{ kind: 'text', text: 'a' }]);
    expect(parser.flush()).toBe('\x1b]69');
    expect(parser.flush()).toBe('');
  });
});
