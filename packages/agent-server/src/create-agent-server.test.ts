import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentServer } from './create-agent-server.js';

describe('createAgentServer', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agent-server-create-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('listens on a free port, reports its URL and closes idempotently', async () => {
    const server = await createAgentServer({ port: 0, workingDir: dir, logLevel: 'silent' });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.options).toMatchObject({ workingDir: dir, port: 0, extensions: true });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    await Promise.all([server.close(), server.close()]);
    await server[Symbol.asyncDispose]();
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it('rejects a working directory that is missing or a file', async () => {
    const file = path.join(dir, 'file.txt');
    await writeFile(file, 'x');
    for (const workingDir of [path.join(dir, 'missing'), file]) {
      const attempt = createAgentServer({ port: 0, workingDir, logLevel: 'silent' });
      await expect(attempt).rejects.toSatisfy(
        (error) =>
          WorkspaceError.isInstance(error, 'INVALID_ARGUMENT') &&
          error.message === `workingDir must be an existing directory: ${workingDir}`,
      );
    }
  });

  it('rejects bad options naming the field', async () => {
    await expect(createAgentServer({ port: 70_000, workingDir: dir })).rejects.toThrow(/port/);
  });
});
