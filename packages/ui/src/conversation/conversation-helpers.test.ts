import { describe, expect, it } from 'vitest';
import { actionArguments } from './action-arguments.js';
import { ansiSpans } from './ansi-spans.js';
import { truncateText } from './truncate-text.js';

describe('ansiSpans', () => {
  it('styles runs by their SGR codes and removes the codes', () => {
    const spans = ansiSpans('\u001b[31mred\u001b[0m ok\n\u001b[1;32mgreen\u001b[0m');
    expect(spans.map((span) => span.text).join('')).toBe('red ok\ngreen');
    expect(spans[0]).toEqual({ text: 'red', color: 'rgb(187, 0, 0)' });
    expect(spans[1]).toEqual({ text: ' ok\n' });
    expect(spans[2]).toMatchObject({ text: 'green', color: 'rgb(0, 187, 0)', bold: true });
  });

  it('keeps markup as text', () => {
    expect(ansiSpans('<b>&amp;</b>')).toEqual([{ text: '<b>&amp;</b>' }]);
    expect(ansiSpans('\u001b[31m<img src=x>')).toEqual([
      { text: '<img src=x>', color: 'rgb(187, 0, 0)' },
    ]);
  });
});

describe('actionArguments', () => {
  it('lists the action fields but kind, objects as indented JSON', () => {
    const action = {
      kind: 'TaskTrackerAction',
      command: 'plan',
      task_list: [{ title: 'A' }],
      path: null,
    };
    expect(actionArguments(action, '{}')).toEqual([
      { name: 'command', value: 'plan' },
      { name: 'task_list', value: '[\n  {\n    "title": "A"\n  }\n]' },
    ]);
  });

  it('falls back to the raw arguments without an action', () => {
    expect(actionArguments(null, '{"bad"')).toEqual([{ name: 'arguments', value: '{"bad"' }]);
  });
});

describe('truncateText', () => {
  it('keeps a short text whole', () => {
    expect(truncateText('a\nb\n', { maxLines: 2 })).toEqual({
      text: 'a\nb\n',
      truncated: false,
      totalLines: 2,
    });
  });

  it('cuts a text to its first lines', () => {
    const text = Array.from({ length: 10 }, (_, index) => `line ${index}`).join('\n');
    expect(truncateText(text, { maxLines: 3 })).toEqual({
      text: 'line 0\nline 1\nline 2',
      truncated: true,
      totalLines: 10,
    });
  });

  it('cuts a long line to the character limit', () => {
    expect(truncateText('x'.repeat(50), { maxChars: 10 })).toMatchObject({
      text: 'x'.repeat(10),
      truncated: true,
    });
  });
});
