import { describe, expect, it } from 'vitest';
import { type PythonCallsResult, parsePythonCalls } from './parse-python-calls.js';

function calls(source: string) {
  const result = parsePythonCalls(source);
  if (!result.ok) throw new Error(`line ${result.line}: ${result.message}`);
  return result.calls;
}

function failure(source: string): { line: number; message: string } {
  const result: PythonCallsResult = parsePythonCalls(source);
  if (result.ok) throw new Error(`parsed: ${JSON.stringify(result.calls)}`);
  return result;
}

describe('parsePythonCalls', () => {
  it('reads one call per line with its line number and source', () => {
    const parsed = calls('click("12")\n\n  fill("7", \'Ada\')\n');
    expect(parsed.map(({ name, args, line, source }) => ({ name, args, line, source }))).toEqual([
      { name: 'click', args: ['12'], line: 1, source: 'click("12")' },
      { name: 'fill', args: ['7', 'Ada'], line: 3, source: 'fill("7", \'Ada\')' },
    ]);
  });

  it('reads numbers, booleans, None, lists, tuples and keyword arguments', () => {
    const [call] = calls(
      'f(-1, 2.5, 1e3, 1_000, True, False, None, ["a", [1]], (), ("x",), (3), key=-0.5)',
    );
    expect(call?.args).toEqual([-1, 2.5, 1000, 1000, true, false, null, ['a', [1]], [], ['x'], 3]);
    expect(call?.kwargs).toEqual({ key: -0.5 });
  });

  it('understands escapes, raw and triple-quoted strings and adjacent literals', () => {
    const [call] = calls(
      String.raw`f("a\"b\n\t\\", 'it\'s', "\x41\u00e9\U0001F600\101", r"C:\dir\n", "x" 'y', "\q")`,
    );
    expect(call?.args).toEqual(['a"b\n\t\\', "it's", 'Aé😀A', 'C:\\dir\\n', 'xy', '\\q']);
    const [triple] = calls('fill("3", """line one\nline "two"\n""")');
    expect(triple?.args[1]).toBe('line one\nline "two"\n');
  });

  it('lets calls span lines inside brackets and skips comments, semicolons and continuations', () => {
    const parsed = calls(
      '# first a comment\nfill(\n  "7",  # the field\n  "text",\n)\nnoop(); go_back()  # done\ngo_forward \\\n()',
    );
    expect(parsed.map((call) => [call.name, call.line])).toEqual([
      ['fill', 2],
      ['noop', 6],
      ['go_back', 6],
      ['go_forward', 7],
    ]);
    expect(parsed[0]?.args).toEqual(['7', 'text']);
  });

  it('answers an empty list for blank text', () => {
    expect(calls('  \n# nothing\n')).toEqual([]);
  });

  it.each([
    ['click("12"', 1, 'expected "," or ")"'],
    ['noop()\nclick("12) ', 2, 'unterminated string'],
    ['noop()\n\nclick(bid)', 3, 'bid is not a literal'],
    ['click("1") click("2")', 1, 'unexpected "c" after the call'],
    ['page.click("1")', 1, 'expected "(" after page'],
    ['"12"', 1, 'expected a function call'],
    ['f(x=1, 2)', 1, 'positional argument follows a keyword argument'],
    ['f(x=1, x=2)', 1, 'keyword argument x twice'],
    ['f([1, 2)', 1, 'expected "," or "]"'],
    ['f(f"{x}")', 1, 'f-strings'],
    ['f(b"x")', 1, 'bytes'],
    ['f(12abc)', 1, 'expected a number'],
    ['f("\\N{DASH}")', 1, '\\N{...}'],
    ['f("\\xZZ")', 1, 'bad escape'],
    ['f(\n[1,\n', 2, '"[" is never closed'],
  ])('reports %j at line %i: %s', (source, line, message) => {
    const problem = failure(source);
    expect(problem.line).toBe(line);
    expect(problem.message).toContain(message);
  });
});
