import path from 'node:path';
import {
  type CommandResult,
  type FileOperationResult,
  type GitChange,
  type GitDiff,
  MAX_ENV_VARIABLES,
} from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import {
  BaseWorkspace,
  type CommandRequest,
  DEFAULT_COMMAND_TIMEOUT_MS,
} from './base-workspace.js';

/** Records what reaches the protected hooks, after validation and resolution. */
class RecordingWorkspace extends BaseWorkspace {
  readonly kind = 'recording';
  readonly commands: CommandRequest[] = [];
  readonly uploads: Array<[string, string]> = [];
  readonly downloads: Array<[string, string]> = [];
  readonly gitPaths: string[] = [];
  closeCount = 0;

  protected async runCommand(request: CommandRequest): Promise<CommandResult> {
    this.commands.push(request);
    return {
      command: request.command,
      exitCode: 0,
      stdout: '',
      stderr: '',
      timeoutOccurred: false,
      durationMs: 0,
    };
  }

  protected async runFileUpload(source: string, dest: string): Promise<FileOperationResult> {
    this.uploads.push([source, dest]);
    return { success: true, sourcePath: source, destinationPath: dest };
  }

  protected async runFileDownload(source: string, dest: string): Promise<FileOperationResult> {
    this.downloads.push([source, dest]);
    return { success: true, sourcePath: source, destinationPath: dest };
  }

  protected async runGitChanges(repositoryPath: string): Promise<GitChange[]> {
    this.gitPaths.push(repositoryPath);
    return [];
  }

  protected async runGitDiff(filePath: string): Promise<GitDiff> {
    this.gitPaths.push(filePath);
    return { modified: null, original: null };
  }

  protected async runClose(): Promise<void> {
    this.closeCount += 1;
    // Yield so that concurrent close() calls overlap.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const make = (workingDir = '/work/project') => new RecordingWorkspace({ workingDir });

/** Asserts a `WorkspaceError` with `code` (and, when given, the field it names). */
async function expectError(
  promise: Promise<unknown>,
  code: string,
  field?: string,
): Promise<WorkspaceError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(WorkspaceError.isInstance(error), String(error)).toBe(true);
  const workspaceError = error as WorkspaceError;
  expect(workspaceError.code).toBe(code);
  if (field !== undefined) {
    expect(workspaceError.details.field).toBe(field);
    expect(workspaceError.message.startsWith(`${field} `)).toBe(true);
  }
  return workspaceError;
}

describe('BaseWorkspace', () => {
  describe('workingDir', () => {
    it('normalises an absolute workingDir', () => {
      expect(make('/work/a/../b//c').workingDir).toBe('/work/b/c');
      expect(make('/').workingDir).toBe('/');
      expect(make('/work/a/').workingDir).toBe('/work/a');
    });

    it.each([
      ['an empty string', ''],
      ['a relative path', 'work/project'],
      ['a dot path', './project'],
      ['a non-string', 42 as unknown as string],
    ])('rejects %s', (_label, workingDir) => {
      let caught: unknown;
      try {
        make(workingDir);
      } catch (error) {
        caught = error;
      }
      expect(WorkspaceError.isInstance(caught, 'INVALID_ARGUMENT')).toBe(true);
      expect((caught as WorkspaceError).details.field).toBe('workingDir');
    });
  });

  describe('executeCommand', () => {
    it('fills in defaults: cwd is workingDir, default timeout, empty env', async () => {
      const workspace = make();
      await workspace.executeCommand('ls');
      expect(workspace.commands).toEqual([
        expect.objectContaining({
          command: 'ls',
          cwd: '/work/project',
          timeoutMs: DEFAULT_COMMAND_TIMEOUT_MS,
          env: {},
        }),
      ]);
    });

    it.each([
      ['sub/dir', '/work/project/sub/dir'],
      ['.', '/work/project'],
      ['../other', '/work/other'],
      ['/abs/path', '/abs/path'],
      ['/abs/./x/../y', '/abs/y'],
    ])('resolves cwd %s to %s', async (cwd, expected) => {
      const workspace = make();
      await workspace.executeCommand('pwd', { cwd });
      expect(workspace.commands[0]?.cwd).toBe(expected);
    });

    it('passes timeout, env, signal and callbacks through', async () => {
      const workspace = make();
      const signal = new AbortController().signal;
      const onStdout = () => {};
      const onStderr = () => {};
      await workspace.executeCommand('env', {
        timeoutMs: 1234,
        env: { A: '1' },
        signal,
        onStdout,
        onStderr,
      });
      expect(workspace.commands[0]).toMatchObject({
        timeoutMs: 1234,
        env: { A: '1' },
        signal,
        onStdout,
        onStderr,
      });
    });

    it.each([
      ['an empty command', ''],
      ['a blank command', '  \n\t'],
      ['a non-string command', undefined as unknown as string],
    ])('rejects %s', async (_label, command) => {
      const workspace = make();
      await expectError(workspace.executeCommand(command), 'INVALID_ARGUMENT', 'command');
      expect(workspace.commands).toEqual([]);
    });

    it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY, '100' as unknown as number])(
      'rejects timeoutMs %s',
      async (timeoutMs) => {
        const workspace = make();
        await expectError(
          workspace.executeCommand('true', { timeoutMs }),
          'INVALID_ARGUMENT',
          'timeoutMs',
        );
        expect(workspace.commands).toEqual([]);
      },
    );

    it('rejects a non-string env value and names the variable', async () => {
      const workspace = make();
      await expectError(
        workspace.executeCommand('true', { env: { OK: 'x', BAD: 1 as unknown as string } }),
        'INVALID_ARGUMENT',
        'env.BAD',
      );
      expect(workspace.commands).toEqual([]);
    });

    it('rejects env names and sizes the command limits refuse, naming the field', async () => {
      const workspace = make();
      await expectError(
        workspace.executeCommand('true', { env: { 'A=B': 'x' } }),
        'INVALID_ARGUMENT',
        'env.A=B',
      );
      await expectError(
        workspace.executeCommand('true', { env: { NUL: 'a\0b' } }),
        'INVALID_ARGUMENT',
        'env.NUL',
      );
      const tooMany = Object.fromEntries(
        Array.from({ length: MAX_ENV_VARIABLES + 1 }, (_, i) => [`V${i}`, '1']),
      );
      await expectError(
        workspace.executeCommand('true', { env: tooMany }),
        'INVALID_ARGUMENT',
        'env',
      );
      expect(workspace.commands).toEqual([]);
    });

    it('rejects empty or NUL-containing cwd', async () => {
      const workspace = make();
      await expectError(workspace.executeCommand('true', { cwd: '' }), 'INVALID_ARGUMENT', 'cwd');
      await expectError(
        workspace.executeCommand('true', { cwd: 'a\0b' }),
        'INVALID_ARGUMENT',
        'cwd',
      );
      expect(workspace.commands).toEqual([]);
    });

    it('rejects an already aborted signal with ABORTED and keeps the reason', async () => {
      const workspace = make();
      const reason = new Error('caller gave up');
      const error = await expectError(
        workspace.executeCommand('true', { signal: AbortSignal.abort(reason) }),
        'ABORTED',
      );
      expect(error.cause).toBe(reason);
      expect(workspace.commands).toEqual([]);
    });
  });

  describe('file paths', () => {
    it('resolves the caller side against process.cwd() and the workspace side against workingDir', async () => {
      const workspace = make();
      await workspace.fileUpload('local/in.txt', 'remote/out.txt');
      await workspace.fileDownload('remote/out.txt', 'local/back.txt');
      await workspace.fileUpload('/abs/in', '/abs/out');
      expect(workspace.uploads).toEqual([
        [path.resolve('local/in.txt'), '/work/project/remote/out.txt'],
        ['/abs/in', '/abs/out'],
      ]);
      expect(workspace.downloads).toEqual([
        ['/work/project/remote/out.txt', path.resolve('local/back.txt')],
      ]);
    });

    it.each([
      ['upload source', (w: RecordingWorkspace) => w.fileUpload('', 'x'), 'sourcePath'],
      ['upload destination', (w: RecordingWorkspace) => w.fileUpload('x', ''), 'destinationPath'],
      ['download source', (w: RecordingWorkspace) => w.fileDownload('a\0', 'x'), 'sourcePath'],
      [
        'download destination',
        (w: RecordingWorkspace) => w.fileDownload('x', 'b\0'),
        'destinationPath',
      ],
    ])('rejects a bad %s naming the field', async (_label, call, field) => {
      const workspace = make();
      await expectError(call(workspace), 'INVALID_ARGUMENT', field);
      expect(workspace.uploads).toEqual([]);
      expect(workspace.downloads).toEqual([]);
    });

    it('resolves git paths against workingDir', async () => {
      const workspace = make();
      await workspace.gitChanges('.');
      await workspace.gitChanges('repo');
      await workspace.gitDiff('repo/file.ts');
      await workspace.gitDiff('/elsewhere/file.ts');
      expect(workspace.gitPaths).toEqual([
        '/work/project',
        '/work/project/repo',
        '/work/project/repo/file.ts',
        '/elsewhere/file.ts',
      ]);
      await expectError(workspace.gitChanges(''), 'INVALID_ARGUMENT', 'path');
      await expectError(workspace.gitDiff('x\0'), 'INVALID_ARGUMENT', 'path');
    });
  });

  describe('pause and resume', () => {
    it('reject with NOT_SUPPORTED by default', async () => {
      const workspace = make();
      await expectError(workspace.pause(), 'NOT_SUPPORTED');
      await expectError(workspace.resume(), 'NOT_SUPPORTED');
    });

    it('reject with WORKSPACE_CLOSED after close', async () => {
      const workspace = make();
      await workspace.close();
      await expectError(workspace.pause(), 'WORKSPACE_CLOSED');
      await expectError(workspace.resume(), 'WORKSPACE_CLOSED');
    });
  });

  describe('close', () => {
    it('runs runClose once however often it is called', async () => {
      const workspace = make();
      expect(workspace.closed).toBe(false);
      await workspace.close();
      await workspace.close();
      expect(workspace.closed).toBe(true);
      expect(workspace.closeCount).toBe(1);
    });

    it('shares one close between concurrent callers and asyncDispose', async () => {
      const workspace = make();
      const first = workspace.close();
      const second = workspace[Symbol.asyncDispose]();
      expect(second).toBe(first);
      await Promise.all([first, second, workspace.close()]);
      expect(workspace.closeCount).toBe(1);
    });

    it('closes at the end of an await using block', async () => {
      let escaped: RecordingWorkspace | undefined;
      {
        await using workspace = make();
        escaped = workspace;
        expect(workspace.closed).toBe(false);
      }
      expect(escaped.closed).toBe(true);
      expect(escaped.closeCount).toBe(1);
    });

    it('rejects every operation afterwards with WORKSPACE_CLOSED without reaching the hooks', async () => {
      const workspace = make();
      await workspace.close();
      await expectError(workspace.executeCommand('true'), 'WORKSPACE_CLOSED');
      // Closed wins over bad input: the caller learns the real problem first.
      await expectError(workspace.executeCommand(''), 'WORKSPACE_CLOSED');
      await expectError(workspace.fileUpload('a', 'b'), 'WORKSPACE_CLOSED');
      await expectError(workspace.fileDownload('a', 'b'), 'WORKSPACE_CLOSED');
      await expectError(workspace.gitChanges('.'), 'WORKSPACE_CLOSED');
      await expectError(workspace.gitDiff('a'), 'WORKSPACE_CLOSED');
      expect(workspace.commands).toEqual([]);
      expect(workspace.uploads).toEqual([]);
      expect(workspace.downloads).toEqual([]);
      expect(workspace.gitPaths).toEqual([]);
    });
  });
});
