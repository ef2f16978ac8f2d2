import { chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ObservationWire } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

const KEY = 'action-key';

describe('POST /execute_action', () => {
  let server: TestServer;
  let confined: TestServer;

  const post = async (target: TestServer, action: unknown, key = KEY) => {
    const response = await fetch(`${target.url}/execute_action`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-api-key': key },
      body: JSON.stringify({ action }),
    });
    return {
      status: response.status,
      body: (await response.json()) as ObservationWire & { detail?: string },
    };
  };
  const execute = (action: unknown) => post(server, action);

  beforeAll(async () => {
    server = await startTestServer({ sessionApiKeys: [KEY] });
    confined = await startTestServer({ sessionApiKeys: [KEY], confineToWorkingDir: true });
  });

  afterAll(async () => {
    await server?.close();
    await confined?.close();
  });

  it('runs a command through the bash service and answers a CmdOutputObservation', async () => {
    await mkdir(path.join(server.dir, 'sub'));
    const { status, body } = await execute({
      action: 'run',
      args: { command: 'pwd; echo out; echo err >&2; exit 3', cwd: 'sub' },
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      observation: 'run',
      content: `${path.join(server.dir, 'sub')}\nout\nerr\n`,
      success: false,
      extras: {
        command: 'pwd; echo out; echo err >&2; exit 3',
        metadata: {
          exit_code: 3,
          working_dir: path.join(server.dir, 'sub'),
          suffix: expect.stringContaining('exit code 3'),
        },
        hidden: false,
      },
    });
    const history = await fetch(`${server.url}/api/bash/bash_events/search?kind__eq=BashCommand`, {
      headers: { 'x-session-api-key': KEY },
    });
    const commands = ((await history.json()) as { items: { command: string }[] }).items.map(
      (item) => item.command,
    );
    expect(commands).toContain('pwd; echo out; echo err >&2; exit 3');
  });

  it('stops a command at the action timeout and says so', async () => {
    const { body } = await execute({ action: 'run', args: { command: 'sleep 30' }, timeout: 0.5 });
    expect(body.extras).toMatchObject({
      metadata: { exit_code: -1, suffix: expect.stringMatching(/timed out after 0\.5 seconds/) },
    });
  });

  it('answers is_input with an error observation', async () => {
    const { body } = await execute({ action: 'run', args: { command: 'y', is_input: true } });
    expect(body).toMatchObject({ observation: 'error', extras: { error_id: 'NOT_SUPPORTED' } });
  });

  it('writes, replaces line ranges of and reads files, keeping permissions', async () => {
    const file = path.join(server.dir, 'deep', 'notes.txt');
    expect(
      (await execute({ action: 'write', args: { path: 'deep/notes.txt', content: 'a\nb\nc' } }))
        .body,
    ).toMatchObject({
      observation: 'write',
      extras: { path: file },
    });
    await chmod(file, 0o640);
    await execute({
      action: 'write',
      args: { path: 'deep/notes.txt', content: 'B1\nB2', start: 1, end: 2 },
    });
    expect(await readFile(file, 'utf8')).toBe('a\nB1\nB2\nc\n');
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    expect(
      (await execute({ action: 'read', args: { path: file, start: 1, end: 3 } })).body,
    ).toMatchObject({
      observation: 'read',
      content: 'B1\nB2\n',
      extras: { path: file, impl_source: 'default' },
    });
    expect(
      (
        await execute({
          action: 'read',
          args: { path: file, impl_source: 'oh_aci', view_range: [2, 2] },
        })
      ).body.content,
    ).toContain('2\tB1');
  });

  it('answers missing files, directories and binary text with error observations', async () => {
    await writeFile(path.join(server.dir, 'latin1.txt'), Buffer.from([0xff, 0xfe, 0x41]));
    await writeFile(path.join(server.dir, 'dot.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const missing = await execute({ action: 'read', args: { path: 'nope.txt' } });
    expect(missing.body).toMatchObject({ observation: 'error', extras: { error_id: 'NOT_FOUND' } });
    expect(missing.body.content).toContain(`Your current working directory is ${server.dir}`);
    expect((await execute({ action: 'read', args: { path: '.' } })).body).toMatchObject({
      extras: { error_id: 'IS_DIRECTORY' },
    });
    expect((await execute({ action: 'read', args: { path: 'latin1.txt' } })).body).toMatchObject({
      extras: { error_id: 'NOT_UTF8' },
    });
    expect((await execute({ action: 'read', args: { path: 'dot.png' } })).body.content).toBe(
      'data:image/png;base64,iVBORw==',
    );
  });

  it('edits with the file editor and returns a unified diff', async () => {
    const file = path.join(server.dir, 'edit.py');
    const created = await execute({
      action: 'edit',
      args: { path: file, command: 'create', file_text: 'x = 1\ny = 2\n' },
    });
    expect(created.body).toMatchObject({
      observation: 'edit',
      extras: { prev_exist: false, impl_source: 'oh_aci' },
    });
    const replaced = await execute({
      action: 'edit',
      args: { path: file, command: 'str_replace', old_str: 'y = 2', new_str: 'y = 3' },
    });
    expect(replaced.body.extras).toMatchObject({
      prev_exist: true,
      old_content: 'y = 2',
      new_content: 'y = 3',
    });
    expect(replaced.body.extras.diff).toMatch(/-y = 2\n\+y = 3/);
    const refused = await execute({
      action: 'edit',
      args: { path: file, command: 'str_replace', old_str: 'nothing', new_str: 'z' },
    });
    expect(refused.body.content).toMatch(/^ERROR:\n/);
    expect(refused.body.extras.diff).toBeNull();
    await execute({ action: 'edit', args: { path: file, command: 'undo_edit' } });
    expect(await readFile(file, 'utf8')).toBe('x = 1\ny = 2\n');
  });

  it('keeps file actions inside the working directory when the server is confined', async () => {
    await symlink('/etc', path.join(confined.dir, 'escape'));
    const read = await post(confined, { action: 'read', args: { path: 'escape/hostname' } });
    expect(read.body).toMatchObject({ observation: 'error', extras: { error_id: 'FORBIDDEN' } });
    const write = await post(confined, {
      action: 'write',
      args: { path: '/tmp/outside.txt', content: 'x' },
    });
    expect(write.body).toMatchObject({ observation: 'error', extras: { error_id: 'FORBIDDEN' } });
    const edit = await post(confined, {
      action: 'edit',
      args: { path: '/etc/hostname', command: 'view' },
    });
    expect(edit.body.content).toMatch(/^ERROR:\n/);
  });

  it('lists and edits only inside the working directory with the file editor when confined', async () => {
    const view = (target: string) =>
      post(confined, { action: 'read', args: { path: target, impl_source: 'oh_aci' } });
    await mkdir(path.join(confined.dir, 'listed', 'inner'), { recursive: true });
    await writeFile(path.join(confined.dir, 'listed', 'inner', 'deep.txt'), 'deep\n');
    await writeFile(path.join(confined.dir, 'listed', '.hidden'), 'h\n');
    await symlink('/etc', path.join(confined.dir, 'listed', 'etc-link'));
    const inside = await view(path.join(confined.dir, 'listed'));
    expect(inside.body.content).toContain(`${path.join(confined.dir, 'listed', 'inner')}/\n`);
    expect(inside.body.content).toContain(path.join(confined.dir, 'listed', 'inner', 'deep.txt'));
    // The link is listed as an entry, never entered; the hidden file is counted, not shown.
    expect(inside.body.content).toContain(path.join(confined.dir, 'listed', 'etc-link'));
    expect(inside.body.content).not.toContain('hostname');
    expect(inside.body.content).toContain('1 hidden files/directories');
    for (const outside of [
      '/etc',
      '/',
      path.join(confined.dir, 'listed', 'etc-link'),
      `${confined.dir}/..`,
    ]) {
      const { body } = await view(outside);
      expect(body.content, outside).toMatch(/^ERROR:\n.*outside the working directory/s);
      expect(body.content, outside).not.toContain('passwd');
    }
    const created = await post(confined, {
      action: 'edit',
      args: { path: '/tmp/editor-outside.txt', command: 'create', file_text: 'x\n' },
    });
    expect(created.body.content).toMatch(/^ERROR:\n.*outside the working directory/s);
    await expect(stat('/tmp/editor-outside.txt')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('answers plugin actions of a server without plugins with PLUGIN_DISABLED', async () => {
    const { status, body } = await execute({ action: 'run_ipython', args: { code: '1 + 1' } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ observation: 'error', extras: { error_id: 'PLUGIN_DISABLED' } });
    expect(body.content).toContain('--plugin python');
  });

  it('refuses bad input with a 400 naming the field, and a missing key with 401', async () => {
    const cases: [unknown, string][] = [
      [
        { action: 'teleport', args: {} },
        'action.action "teleport" is not an action this server runs (it runs run, read, write, edit)',
      ],
      [{ action: 'run', args: { command: 5 } }, 'action.args.command'],
      [{ action: 'read', args: { path: 'a', start: -1 } }, 'action.args.start'],
      [{ action: 'run', args: { command: 'true', cwd: 'missing-dir' } }, 'action.args.cwd'],
      [{ args: {} }, 'body.action.action'],
    ];
    for (const [action, detail] of cases) {
      const { status, body } = await execute(action);
      expect(status, JSON.stringify(action)).toBe(400);
      expect(body.detail, JSON.stringify(action)).toContain(detail);
    }
    expect((await post(server, { action: 'run', args: { command: 'true' } }, 'wrong')).status).toBe(
      401,
    );
  });
});
