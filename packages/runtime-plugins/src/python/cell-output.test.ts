import { describe, expect, it } from 'vitest';
import { CellOutput, MAX_CELL_IMAGES, MAX_CELL_OUTPUT_CHARS } from './cell-output.js';
import { JupyterCodec } from './jupyter-codec.js';

const codec = new JupyterCodec('key');
const message = (type: string, content: Record<string, unknown>) => codec.request(type, content);
const stream = (text: string, name = 'stdout') => message('stream', { name, text });
const display = (data: Record<string, unknown>) => message('display_data', { data, metadata: {} });

describe('CellOutput', () => {
  it('keeps streams, results and tracebacks in order, each result and traceback on its own lines', () => {
    const output = new CellOutput();
    output.add(stream('partial line'));
    output.add(message('execute_result', { data: { 'text/plain': '42' }, execution_count: 1 }));
    output.add(stream('oops\n', 'stderr'));
    output.add(
      message('error', {
        ename: 'ValueError',
        evalue: 'bad',
        traceback: [
          '\u001b[0;31mValueError\u001b[0m: bad',
          '\u001b]8;;file:///x\u0007link\u001b]8;;\u0007',
        ],
      }),
    );
    output.add(message('status', { execution_state: 'idle' }));
    expect(output.text()).toBe('partial line\n42\noops\nValueError: bad\nlink\n');
  });

  it('answers PNG and JPEG images as data: URLs instead of their text repr', () => {
    const output = new CellOutput();
    output.add(display({ 'image/png': 'iVBO\nRw==', 'text/plain': '<Image object>' }));
    output.add(display({ 'image/jpeg': '/9j/', 'text/plain': '<Figure>' }));
    output.add(display({ 'text/html': '<b>x</b>', 'text/plain': 'x' }));
    expect(output.images()).toEqual([
      'data:image/png;base64,iVBORw==',
      'data:image/jpeg;base64,/9j/',
    ]);
    expect(output.text()).toBe('x\n');
  });

  it('clears on clear_output, at once or (wait) at the next output', () => {
    const output = new CellOutput();
    output.add(stream('10%'));
    output.add(message('clear_output', { wait: true }));
    expect(output.text()).toBe('10%');
    output.add(stream('100%'));
    expect(output.text()).toBe('100%');
    output.add(display({ 'image/png': 'AAAA' }));
    output.add(message('clear_output', { wait: false }));
    expect(output.text()).toBe('');
    expect(output.images()).toEqual([]);
  });

  it('keeps the head and the tail of a huge output and counts what it left out', () => {
    const output = new CellOutput();
    const line = `${'x'.repeat(99)}\n`;
    const lines = 5000;
    output.add(stream('FIRST\n'));
    for (let index = 0; index < lines; index++) output.add(stream(line));
    output.add(stream('LAST\n'));
    const text = output.text();
    const total = 'FIRST\n'.length + lines * line.length + 'LAST\n'.length;
    const omitted = total - MAX_CELL_OUTPUT_CHARS;
    expect(text.startsWith('FIRST\n')).toBe(true);
    expect(text.endsWith('LAST\n')).toBe(true);
    expect(text).toContain(`[... ${omitted} characters of output omitted ...]`);
    expect(text.length).toBeLessThan(MAX_CELL_OUTPUT_CHARS + 100);
  });

  it(`keeps at most ${MAX_CELL_IMAGES} images and says how many more there were`, () => {
    const output = new CellOutput();
    for (let index = 0; index < MAX_CELL_IMAGES + 3; index++)
      output.add(display({ 'image/png': 'AAAA' }));
    expect(output.images()).toHaveLength(MAX_CELL_IMAGES);
    expect(output.text()).toContain('[3 more images omitted]');
  });
});
