import { chmod, lstat, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolTempWorkspace } from '../test-support/tool-temp-workspace.js';
import { type FileEditorArgs, fileEditorArgsSchema } from './file-editor-args.js';
import { FileEditorTool } from './file-editor-tool.js';
import type { ToolContext } from './tool.js';

/** Runs one call with arguments checked by the tool's own schema, as the agent does. */
function call(editor: FileEditorTool, args: Record<string, unknown>, context: ToolContext) {
  return editor.execute(fileEditorArgsSchema.parse(args) as FileEditorArgs, context);
}

const lines = (count: number): string =>
  `${Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n')}\n`;

describe('FileEditorTool', () => {
  describe('view', () => {
    it('shows a file with line numbers like cat -n', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'a.txt');
      await writeFile(file, 'alpha\n\tbeta\ngamma\n');
      const result = await call(new FileEditorTool(), { command: 'view', path: file }, t.context);
      expect(result.isError).toBe(false);
      expect(result.text).toBe(
        `Here's the result of running \`cat -n\` on ${file}:\n     1\talpha\n     2\t\tbeta\n     3\tgamma\n`,
      );
      expect(result.content).toMatchObject({ command: 'view', path: file });
    });

    it('shows a range, with -1 meaning the end', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'ten.txt');
      await writeFile(file, lines(10));
      const editor = new FileEditorTool();
      const middle = await call(
        editor,
        { command: 'view', path: file, view_range: [3, 4] },
        t.context,
      );
      expect(middle.text).toBe(
        `Here's the result of running \`cat -n\` on ${file}:\n     3\tline 3\n     4\tline 4\n`,
      );
      const tail = await call(
        editor,
        { command: 'view', path: file, view_range: [9, -1] },
        t.context,
      );
      expect(tail.text).toMatch(/ {5}9\tline 9\n {4}10\tline 10\n$/);
      const beyond = await call(
        editor,
        { command: 'view', path: file, view_range: [10, 50] },
        t.context,
      );
      expect(beyond.text).toMatch(
        /^NOTE: We only show up to 10 since there're only 10 lines in this file\.\n/,
      );
    });

    it('refuses a range outside the file or the wrong shape', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'three.txt');
      await writeFile(file, lines(3));
      const editor = new FileEditorTool();
      const outside = await call(
        editor,
        { command: 'view', path: file, view_range: [4, 5] },
        t.context,
      );
      expect(outside.isError).toBe(true);
      expect(outside.text).toContain('should be within the range of lines of the file: [1, 3]');
      const reversed = await call(
        editor,
        { command: 'view', path: file, view_range: [3, 2] },
        t.context,
      );
      expect(reversed.isError).toBe(true);
      const shape = await call(editor, { command: 'view', path: file, view_range: [1] }, t.context);
      expect(shape.text).toContain('It should be a list of two integers.');
    });

    it('lists a directory two levels deep without hidden entries', async () => {
      await using t = await toolTempWorkspace();
      await mkdir(path.join(t.dir, 'src/deep/deeper'), { recursive: true });
      await mkdir(path.join(t.dir, '.git'));
      await writeFile(path.join(t.dir, '.git/config'), '');
      await writeFile(path.join(t.dir, '.env'), '');
      await writeFile(path.join(t.dir, 'src/index.ts'), '');
      await writeFile(path.join(t.dir, 'src/.hidden.ts'), '');
      await writeFile(path.join(t.dir, 'src/deep/too-deep.ts'), '');
      await writeFile(path.join(t.dir, 'README.md'), '');
      const result = await call(
        new FileEditorTool(),
        { command: 'view', path: `${t.dir}/` },
        t.context,
      );
      expect(result.isError).toBe(false);
      expect(result.text).toBe(
        [
          `Here's the files and directories up to 2 levels deep in ${t.dir}, excluding hidden items:`,
          `${t.dir}/`,
          `${t.dir}/README.md`,
          `${t.dir}/src/`,
          `${t.dir}/src/deep/`,
          `${t.dir}/src/index.ts`,
          '',
          `2 hidden files/directories in this directory are excluded. You can use 'ls -la ${t.dir}' to see them.`,
        ].join('\n'),
      );
    });

    it('refuses view_range on a directory and a missing path', async () => {
      await using t = await toolTempWorkspace();
      const editor = new FileEditorTool();
      const ranged = await call(
        editor,
        { command: 'view', path: t.dir, view_range: [1, 2] },
        t.context,
      );
      expect(ranged.isError).toBe(true);
      expect(ranged.text).toContain('not allowed when `path` points to a directory');
      const gone = path.join(t.dir, 'nope.txt');
      const missing = await call(editor, { command: 'view', path: gone }, t.context);
      expect(missing.isError).toBe(true);
      expect(missing.text).toBe(
        `Invalid \`path\` parameter: ${gone}. The path ${gone} does not exist. Please provide a valid path.`,
      );
    });

    it('refuses a binary file', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'blob.bin');
      await writeFile(file, Buffer.from([0x89, 0x50, 0x00, 0xff, 0xfe]));
      const result = await call(new FileEditorTool(), { command: 'view', path: file }, t.context);
      expect(result.isError).toBe(true);
      expect(result.text).toContain('appears to be binary or is not UTF-8 text');
    });

    it('clips a long file for the model and keeps the whole view in content', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'long.txt');
      await writeFile(file, lines(5000));
      const result = await call(new FileEditorTool(), { command: 'view', path: file }, t.context);
      expect(result.text).toMatch(
        /<response clipped: \d+ characters omitted\. Only part of this file/,
      );
      expect(result.text).toMatch(/ {2}5000\tline 5000\n$/);
      expect(result.content.output as string).toContain('  2500\tline 2500\n');
      expect(result.text).not.toContain('  2500\tline 2500\n');
    });
  });

  describe('create', () => {
    it('creates a file, with parent directories', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'new/dir/hello.py');
      const result = await call(
        new FileEditorTool(),
        { command: 'create', path: file, file_text: 'print("hi")\n' },
        t.context,
      );
      expect(result.isError).toBe(false);
      expect(result.text).toBe(`File created successfully at: ${file}`);
      expect(await readFile(file, 'utf8')).toBe('print("hi")\n');
      expect(result.content).toMatchObject({ prev_exist: false, new_content: 'print("hi")\n' });
    });

    it('refuses to overwrite an existing file', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'keep.txt');
      await writeFile(file, 'original');
      const result = await call(
        new FileEditorTool(),
        { command: 'create', path: file, file_text: 'replaced' },
        t.context,
      );
      expect(result.isError).toBe(true);
      expect(result.text).toContain(
        `File already exists at: ${file}. Cannot overwrite files using command \`create\`.`,
      );
      expect(await readFile(file, 'utf8')).toBe('original');
    });

    it('requires file_text', async () => {
      await using t = await toolTempWorkspace();
      const result = await call(
        new FileEditorTool(),
        { command: 'create', path: path.join(t.dir, 'x.txt'), file_text: null },
        t.context,
      );
      expect(result.isError).toBe(true);
      expect(result.text).toBe('Parameter `file_text` is required for command: create.');
    });
  });

  describe('str_replace', () => {
    it('replaces a unique string and shows a numbered snippet around it', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'ten.txt');
      await writeFile(file, lines(10));
      const result = await call(
        new FileEditorTool(),
        {
          command: 'str_replace',
          path: file,
          old_str: 'line 6\n',
          new_str: 'six\nsix and a half\n',
        },
        t.context,
      );
      expect(result.isError).toBe(false);
      expect(await readFile(file, 'utf8')).toBe(
        lines(10).replace('line 6\n', 'six\nsix and a half\n'),
      );
      expect(result.text).toBe(
        [
          `The file ${file} has been edited. Here's the result of running \`cat -n\` on a snippet of ${file}:`,
          '     3\tline 3',
          '     4\tline 4',
          '     5\tline 5',
          '     6\tsix',
          '     7\tsix and a half',
          '     8\tline 7',
          '     9\tline 8',
          '    10\tline 9',
          '    11\tline 10',
          'Review the changes and make sure they are as expected. Edit the file again if necessary.',
        ].join('\n'),
      );
      expect(result.content).toMatchObject({ command: 'str_replace', old_content: lines(10) });
    });

    it('refuses an old_str that is absent', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'a.txt');
      await writeFile(file, 'abc\n');
      const result = await call(
        new FileEditorTool(),
        { command: 'str_replace', path: file, old_str: 'xyz', new_str: 'q' },
        t.context,
      );
      expect(result.isError).toBe(true);
      expect(result.text).toBe(
        `No replacement was performed, old_str \`xyz\` did not appear verbatim in ${file}.`,
      );
      expect(await readFile(file, 'utf8')).toBe('abc\n');
    });

    it('refuses an old_str that appears more than once, naming the lines', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'dup.txt');
      await writeFile(file, 'x = 1\ny = 2\nx = 1\n\nx = 1\n');
      const result = await call(
        new FileEditorTool(),
        { command: 'str_replace', path: file, old_str: 'x = 1', new_str: 'x = 3' },
        t.context,
      );
      expect(result.isError).toBe(true);
      expect(result.text).toBe(
        'No replacement was performed. Multiple occurrences of old_str `x = 1` in lines [1, 3, 5]. Please ensure it is unique.',
      );
      expect(await readFile(file, 'utf8')).toBe('x = 1\ny = 2\nx = 1\n\nx = 1\n');
    });

    it('refuses new_str equal to old_str', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'a.txt');
      await writeFile(file, 'abc\n');
      const result = await call(
        new FileEditorTool(),
        { command: 'str_replace', path: file, old_str: 'abc', new_str: 'abc' },
        t.context,
      );
      expect(result.isError).toBe(true);
      expect(result.text).toContain('`new_str` and `old_str` must be different');
    });

    it('deletes the string when new_str is omitted', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'a.txt');
      await writeFile(file, 'keep\ndrop\nkeep too\n');
      await call(
        new FileEditorTool(),
        { command: 'str_replace', path: file, old_str: 'drop\n' },
        t.context,
      );
      expect(await readFile(file, 'utf8')).toBe('keep\nkeep too\n');
    });

    it('edits unicode text and a file with special characters in its name', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, `we'ird $(name) "x" ✓ \\ & ;.md`);
      await writeFile(file, '# Café ☕\nnaïve → 日本語 🎉\n');
      const editor = new FileEditorTool();
      const result = await call(
        editor,
        { command: 'str_replace', path: file, old_str: '日本語 🎉', new_str: 'にほんご 🎊' },
        t.context,
      );
      expect(result.isError).toBe(false);
      expect(await readFile(file, 'utf8')).toBe('# Café ☕\nnaïve → にほんご 🎊\n');
      const view = await call(editor, { command: 'view', path: file }, t.context);
      expect(view.text).toContain('     2\tnaïve → にほんご 🎊');
    });

    it('keeps CRLF line ends, permission bits and a symbolic link', async () => {
      await using t = await toolTempWorkspace();
      const real = path.join(t.dir, 'run.sh');
      const link = path.join(t.dir, 'link.sh');
      await writeFile(real, '#!/bin/sh\r\necho old\r\n');
      await chmod(real, 0o750);
      await symlink(real, link);
      const result = await call(
        new FileEditorTool(),
        {
          command: 'str_replace',
          path: link,
          old_str: 'echo old\n',
          new_str: 'echo new\necho more\n',
        },
        t.context,
      );
      expect(result.isError).toBe(false);
      expect(await readFile(real, 'utf8')).toBe('#!/bin/sh\r\necho new\r\necho more\r\n');
      expect((await stat(real)).mode & 0o777).toBe(0o750);
      expect((await lstat(link)).isSymbolicLink()).toBe(true);
    });
  });

  describe('insert', () => {
    it('inserts after a line and shows a snippet', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'ten.txt');
      await writeFile(file, lines(10));
      const result = await call(
        new FileEditorTool(),
        { command: 'insert', path: file, insert_line: 2, new_str: 'new A\nnew B' },
        t.context,
      );
      expect(result.isError).toBe(false);
      expect(await readFile(file, 'utf8')).toBe(
        lines(10).replace('line 2\n', 'line 2\nnew A\nnew B\n'),
      );
      expect(result.text).toBe(
        [
          `The file ${file} has been edited. Here's the result of running \`cat -n\` on a snippet of the edited file:`,
          '     1\tline 1',
          '     2\tline 2',
          '     3\tnew A',
          '     4\tnew B',
          '     5\tline 3',
          '     6\tline 4',
          '     7\tline 5',
          '     8\tline 6',
          'Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.',
        ].join('\n'),
      );
    });

    it('inserts at the start and at the end of a file without a final newline', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'a.txt');
      await writeFile(file, 'one\ntwo');
      const editor = new FileEditorTool();
      await call(
        editor,
        { command: 'insert', path: file, insert_line: 0, new_str: 'zero' },
        t.context,
      );
      expect(await readFile(file, 'utf8')).toBe('zero\none\ntwo');
      await call(
        editor,
        { command: 'insert', path: file, insert_line: 3, new_str: 'three' },
        t.context,
      );
      expect(await readFile(file, 'utf8')).toBe('zero\none\ntwo\nthree\n');
    });

    it('refuses a line beyond the end', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'a.txt');
      await writeFile(file, 'one\ntwo\n');
      const result = await call(
        new FileEditorTool(),
        { command: 'insert', path: file, insert_line: 3, new_str: 'x' },
        t.context,
      );
      expect(result.isError).toBe(true);
      expect(result.text).toBe(
        'Invalid `insert_line` parameter: 3. It should be within the range of allowed values: [0, 2]',
      );
    });
  });

  describe('undo_edit', () => {
    it('reverts the edits of a file one by one, then removes the file it created', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'undo.txt');
      const editor = new FileEditorTool();
      await call(editor, { command: 'create', path: file, file_text: 'v1\n' }, t.context);
      await call(
        editor,
        { command: 'str_replace', path: file, old_str: 'v1', new_str: 'v2' },
        t.context,
      );
      await call(
        editor,
        { command: 'insert', path: file, insert_line: 1, new_str: 'v3' },
        t.context,
      );
      expect(await readFile(file, 'utf8')).toBe('v2\nv3\n');

      const first = await call(editor, { command: 'undo_edit', path: file }, t.context);
      expect(first.isError).toBe(false);
      expect(first.text).toBe(
        `Last edit to ${file} undone successfully. Here's the result of running \`cat -n\` on ${file}:\n     1\tv2\n`,
      );
      expect(await readFile(file, 'utf8')).toBe('v2\n');
      await call(editor, { command: 'undo_edit', path: file }, t.context);
      expect(await readFile(file, 'utf8')).toBe('v1\n');
      const removal = await call(editor, { command: 'undo_edit', path: file }, t.context);
      expect(removal.text).toMatch(/so it was removed\.$/);
      await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
      const none = await call(editor, { command: 'undo_edit', path: file }, t.context);
      expect(none.isError).toBe(true);
      expect(none.text).toBe(`No edit history found for ${file}.`);
    });

    it('keeps history per tool instance', async () => {
      await using t = await toolTempWorkspace();
      const file = path.join(t.dir, 'a.txt');
      await writeFile(file, 'a\n');
      await call(
        new FileEditorTool(),
        { command: 'str_replace', path: file, old_str: 'a', new_str: 'b' },
        t.context,
      );
      const other = await call(
        new FileEditorTool(),
        { command: 'undo_edit', path: file },
        t.context,
      );
      expect(other.isError).toBe(true);
      expect(await readFile(file, 'utf8')).toBe('b\n');
    });
  });

  describe('paths', () => {
    it('refuses a relative path, suggesting the absolute one under the working directory', async () => {
      await using t = await toolTempWorkspace();
      await writeFile(path.join(t.dir, 'rel.txt'), 'x\n');
      const result = await call(
        new FileEditorTool(),
        { command: 'view', path: 'rel.txt' },
        t.context,
      );
      expect(result.isError).toBe(true);
      expect(result.text).toContain(
        'Invalid `path` parameter: rel.txt. The path should be an absolute path',
      );
      expect(result.text).toContain(`maybe you meant ${path.join(t.dir, 'rel.txt')}?`);
    });

    it('refuses editing a directory', async () => {
      await using t = await toolTempWorkspace();
      const result = await call(
        new FileEditorTool(),
        { command: 'insert', path: t.dir, insert_line: 0, new_str: 'x' },
        t.context,
      );
      expect(result.isError).toBe(true);
      expect(result.text).toContain('only the `view` command can be used on directories');
    });
  });

  it('names the working directory in its description when given', () => {
    expect(new FileEditorTool({ workingDir: '/work/project' }).description).toContain(
      'Your current working directory is: /work/project',
    );
    expect(new FileEditorTool().description).not.toContain('Your current working directory');
  });
});
