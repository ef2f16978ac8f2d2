import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { WorkspaceError } from '@agent-workspace/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRequirements } from './check-requirements.js';
import { importOptionalLibrary, optionalLibraryRequirement } from './optional-library.js';

/**
 * The error Node itself raises for `import(name)` where no such package is installed: a real
 * Node process in an empty folder outside the repository tries it.
 */
async function nodeMissingPackageError(name: string, cwd: string): Promise<Error> {
  const script = `import(${JSON.stringify(name)}).then(() => process.stdout.write('{}'), (e) => process.stdout.write(JSON.stringify({ code: e.code, message: e.message })))`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script],
    { cwd },
  );
  const { code, message } = JSON.parse(stdout) as { code?: string; message?: string };
  expect(code, 'the child found the package').toBe('ERR_MODULE_NOT_FOUND');
  return Object.assign(new Error(message), { code });
}

describe('importOptionalLibrary', () => {
  let emptyDir: string;
  beforeAll(async () => {
    emptyDir = await mkdtemp(path.join(os.tmpdir(), 'optional-library-'));
  });
  afterAll(async () => {
    await rm(emptyDir, { recursive: true, force: true });
  });

  it('returns the library when it is installed', async () => {
    const turndown = await importOptionalLibrary('turndown', () => import('turndown'));
    expect(typeof turndown.default).toBe('function');
  });

  it("turns Node's missing-package error into NOT_FOUND with the install command", async () => {
    for (const name of ['zeromq', 'playwright-core', 'turndown'] as const) {
      const missing = await nodeMissingPackageError(name, emptyDir);
      const error = await importOptionalLibrary(name, () => Promise.reject(missing)).catch(
        (e: unknown) => e,
      );
      expect(WorkspaceError.isInstance(error), String(error)).toBe(true);
      const { code, message, details, cause } = error as WorkspaceError;
      expect(code).toBe('NOT_FOUND');
      expect(message).toContain(`install it with: npm install ${name}`);
      expect(details).toEqual({ module: name, install: `npm install ${name}` });
      expect(cause).toBe(missing);
    }
  });

  it('lets other failures through unchanged, including another missing package', async () => {
    const other = await nodeMissingPackageError('zeromq-helper', emptyDir);
    await expect(importOptionalLibrary('zeromq', () => Promise.reject(other))).rejects.toBe(other);
    const broken = new Error('the addon was built for another Node');
    await expect(importOptionalLibrary('zeromq', () => Promise.reject(broken))).rejects.toBe(
      broken,
    );
  });
});

describe('optionalLibraryRequirement', () => {
  it('is met for an installed library and names the install command otherwise', async () => {
    const installed = await checkRequirements(
      [optionalLibraryRequirement('zeromq')],
      new AbortController().signal,
    );
    expect(installed.problems).toEqual([]);
    const missing = await checkRequirements(
      [{ ...optionalLibraryRequirement('turndown'), name: 'turndown-not-installed' }],
      new AbortController().signal,
    );
    expect(missing.problems).toEqual([
      'the Node package turndown-not-installed is not installed; install it with: npm install turndown',
    ]);
  });
});
