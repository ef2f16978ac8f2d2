/**
 * Every path an agent takes through a server started with `--sandbox --allow-host` and both
 * plugins, tried as an attacker would: bash routes, `/execute_action`, the file editor,
 * conversation tools (terminal, file_editor, browser, IPython), the kernel, the browser, git and
 * file routes. Each answer is searched for what must stay out of reach: a file outside the
 * working directory, the server's keys (session keys, a model key in its environment), its
 * state and runtime directories, `/proc/<server pid>/environ`, and a loopback service that is
 * not on the allow-list. Then: no conversation command, kernel or process a cell started outlives
 * a `kill -9` of the server.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import { type Answer, call } from './support/http.js';
import { kernelSkipReason, sandboxSkipReason } from './support/processes.js';
import { AUTH, createScratch, KEY, type Scratch, ServerProcess } from './support/server-process.js';

const marker = (name: string) => `${name}-${randomBytes(6).toString('hex')}`;
const OUTSIDE_SECRET = marker('OUTSIDE');
const UNLISTED_BODY = marker('UNLISTED');
const LISTED_BODY = marker('LISTED');
const SECOND_KEY = marker('second-session-key');
const MODEL_KEY = marker('sk-model-key');

const skipReason = sandboxSkipReason('the trust-boundary reliability suite');

/** An HTTP server on 127.0.0.1 answering `body`. */
async function serve(servers: Server[], body: string): Promise<number> {
  const server = createServer((_request, response) => response.end(body));
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** Shell commands an agent might run to get out; `$P` is the unlisted port, `$L` the listed. */
function escapeCommands(outside: string, serverPid: number, scratch: Scratch): string[] {
  return [
    `cat ${outside}/secret.txt`,
    'cat escape/secret.txt',
    `cat /proc/${serverPid}/environ | tr '\\0' '\\n'`,
    'env',
    `ls -la ${scratch.runtimeDir} ${path.join(scratch.base, 'state')}`,
    `find / -name secret.txt -not -path '/proc/*' 2>/dev/null | xargs -r cat`,
    'curl -s --max-time 5 http://127.0.0.1:$P/',
    'curl -s --max-time 5 --noproxy \'\' -x "$HTTP_PROXY" http://127.0.0.1:$P/',
    'exec 3<>/dev/tcp/127.0.0.1/$P && printf "GET / HTTP/1.0\\r\\n\\r\\n" >&3 && cat <&3',
    'getent ahosts example.com',
  ];
}

describe.skipIf(skipReason !== undefined)('one trust boundary for every agent path', () => {
  const figures = new Figures('trust boundary: every agent path');
  const servers: Server[] = [];
  let scratch: Scratch;
  let server: ServerProcess;
  let outside: string;
  let listedPort: number;
  let unlistedPort: number;
  const answers: { path: string; text: string }[] = [];

  /** Records one attempt and its answer; what leaked is counted when the suite ends. */
  const record = (name: string, answer: Answer | string): string => {
    const text = typeof answer === 'string' ? answer : answer.text;
    figures.tried++;
    answers.push({ path: name, text });
    return text;
  };
  const secrets = () => [OUTSIDE_SECRET, UNLISTED_BODY, KEY, SECOND_KEY, MODEL_KEY];
  const leaksIn = (text: string) => secrets().filter((secret) => text.includes(secret));

  const post = (route: string, body: unknown, timeoutMs = 60_000) =>
    call(`${server.url}${route}`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      timeoutMs,
    });
  const get = (route: string) => call(`${server.url}${route}`, { headers: AUTH });
  const withPorts = (command: string) =>
    command.replaceAll('$P', String(unlistedPort)).replaceAll('$L', String(listedPort));

  beforeAll(async () => {
    scratch = await createScratch('trust-boundary');
    outside = path.join(scratch.base, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
    await symlink(outside, path.join(scratch.workingDir, 'escape'));
    await writeFile(
      path.join(scratch.workingDir, 'links.html'),
      `<a id="out" href="file://${outside}/secret.txt">out</a> <a href="file:///etc/passwd">passwd</a>`,
    );
    listedPort = await serve(servers, LISTED_BODY);
    unlistedPort = await serve(servers, UNLISTED_BODY);
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      flags: [
        '--sandbox',
        '--allow-host',
        `127.0.0.1:${listedPort}`,
        '--state-dir',
        path.join(scratch.base, 'state'),
        '--plugin',
        'python',
        '--plugin',
        'browser',
      ],
      env: { OH_SESSION_API_KEYS_1: SECOND_KEY, OPENAI_API_KEY: MODEL_KEY, LLM_API_KEY: MODEL_KEY },
    });
    await pluginsReady(server.url);
  }, 180_000);

  afterAll(async () => {
    figures.escapes = answers.filter((answer) => leaksIn(answer.text).length > 0).length;
    if (server) figures.observeRss(server.peakRss);
    figures.save();
    await server?.stop();
    for (const listening of servers) listening.close();
    await scratch?.remove();
  });

  it('reports the boundary in /server_info', async () => {
    const info = (await get('/server_info')).json as Record<string, unknown>;
    expect(info.trust_boundary).toEqual({
      paths: 'confined',
      code_execution: 'sandbox',
      network: 'allow_list',
      allowed_hosts: [`127.0.0.1:${listedPort}`],
      warnings: [],
    });
    expect((info.plugins as { state: string }[]).map((plugin) => plugin.state)).toEqual([
      'ready',
      'ready',
    ]);
  });

  it('keeps bash routes and /execute_action run inside', async () => {
    for (const command of escapeCommands(outside, server.pid, scratch).map(withPorts)) {
      const bash = await post('/api/bash/execute_bash_command', { command, timeout: 30 });
      record(`bash: ${command}`, bash);
      const run = await post('/execute_action', { action: { action: 'run', args: { command } } });
      record(`execute_action run: ${command}`, run);
    }
    // The listed host is reached through the proxy (a client that bypasses NO_PROXY).
    const listed = await post('/execute_action', {
      action: {
        action: 'run',
        args: { command: `curl -s --noproxy '' -x "$HTTP_PROXY" http://127.0.0.1:${listedPort}/` },
      },
    });
    expect(listed.text).toContain(LISTED_BODY);
    // Other spellings of loopback lead nowhere unlisted; sent as written (not normalised by a
    // client), a non-canonical spelling of the listed address is refused too.
    for (const host of ['127.1', '0x7f000001', '2130706433', 'localhost', '[::ffff:127.0.0.1]']) {
      const command = `curl -s --max-time 5 --noproxy '' -x "$HTTP_PROXY" http://${host}:${unlistedPort}/`;
      const tricked = await post('/execute_action', {
        action: { action: 'run', args: { command } },
      });
      record(`run via proxy to ${host}:${unlistedPort}`, tricked);
      const raw = [
        'proxy=$(printf %s "$HTTP_PROXY" | sed "s|.*:||")',
        'exec 3<>/dev/tcp/127.0.0.1/$proxy',
        `printf 'GET http://${host}:${listedPort}/ HTTP/1.1\\r\\nHost: ${host}:${listedPort}\\r\\nConnection: close\\r\\n\\r\\n' >&3`,
        'head -1 <&3',
      ].join('; ');
      const written = await post('/execute_action', {
        action: { action: 'run', args: { command: raw } },
      });
      figures.tried++;
      if (written.text.includes('403')) figures.rejected++;
      expect(written.text, host).toContain('HTTP/1.1 403');
    }
  });

  it('keeps file actions, the file editor, file and git routes inside', async () => {
    const targets = [
      `${outside}/secret.txt`,
      'escape/secret.txt',
      `/proc/${server.pid}/environ`,
      path.join(scratch.runtimeDir),
    ];
    for (const target of targets) {
      const read = await post('/execute_action', {
        action: { action: 'read', args: { path: target } },
      });
      if (record(`read ${target}`, read).includes('"observation":"error"')) figures.rejected++;
      const absolute = path.isAbsolute(target) ? target : path.join(scratch.workingDir, target);
      for (const impl of ['oh_aci']) {
        const view = await post('/execute_action', {
          action: { action: 'read', args: { path: absolute, impl_source: impl } },
        });
        if (record(`oh_aci view ${absolute}`, view).includes('ERROR')) figures.rejected++;
      }
      const download = await get(`/api/file/download?path=${encodeURIComponent(absolute)}`);
      if (record(`download ${absolute}`, download) && download.status === 403) figures.rejected++;
      const changes = await get(`/api/git/changes?path=${encodeURIComponent(absolute)}`);
      record(`git changes ${absolute}`, changes);
    }
    const listing = await post('/execute_action', {
      action: { action: 'read', args: { path: outside, impl_source: 'oh_aci' } },
    });
    expect(record(`oh_aci list ${outside}`, listing)).toContain('outside the working directory');
    const created = await post('/execute_action', {
      action: {
        action: 'edit',
        args: { path: `${outside}/planted.txt`, command: 'create', file_text: 'x' },
      },
    });
    record('oh_aci create outside', created);
    expect(existsSync(`${outside}/planted.txt`)).toBe(false);
  });

  it('keeps the kernel inside: no outside file, no key, no unlisted host', async () => {
    const cells = [
      `print(open(${JSON.stringify(`${outside}/secret.txt`)}).read())`,
      `print(open('/proc/${server.pid}/environ').read())`,
      'import os; print(dict(os.environ))',
      `import socket; s = socket.create_connection(('127.0.0.1', ${unlistedPort}), 5); s.send(b'GET / HTTP/1.0\\r\\n\\r\\n'); print(s.recv(4096))`,
      `import urllib.request; print(urllib.request.urlopen(urllib.request.Request('http://127.0.0.1:${unlistedPort}/'), timeout=5).read())`,
      `import urllib.request; h = urllib.request.ProxyHandler({'http': os.environ['HTTP_PROXY']}); print(urllib.request.build_opener(h).open('http://127.0.0.1:${unlistedPort}/', timeout=5).read())`,
    ];
    for (const code of cells) {
      const answer = await post('/execute_action', {
        action: { action: 'run_ipython', args: { code } },
      });
      record(`run_ipython: ${code.slice(0, 60)}`, answer);
    }
  });

  it('keeps the browser inside: local URLs outside refused, unlisted hosts unreachable', async () => {
    const urls = [
      'file:///etc/passwd',
      'view-source:file:///etc/passwd',
      `file://${outside}/secret.txt`,
      `file://${scratch.workingDir}/escape/secret.txt`,
      `filesystem:file:///etc/passwd`,
      `http://127.0.0.1:${unlistedPort}/`,
      `http://localhost:${unlistedPort}/`,
    ];
    for (const url of urls) {
      const answer = await post('/execute_action', { action: { action: 'browse', args: { url } } });
      if (answer.status === 400) figures.rejected++;
      record(`browse ${url}`, answer);
    }
    const page = await post('/execute_action', {
      action: { action: 'browse', args: { url: `file://${scratch.workingDir}/links.html` } },
    });
    expect(page.status).toBe(200);
    const clicked = await post('/execute_action', {
      action: {
        action: 'browse_interactive',
        args: { browser_actions: `goto("file://${scratch.workingDir}/links.html")\nclick("out")` },
      },
    });
    record('browse_interactive: click a link leading out', clicked);
  });

  it('keeps conversation tools inside: terminal, file_editor, IPython and browser', async () => {
    const commands = escapeCommands(outside, server.pid, scratch).map(withPorts);
    const script = [
      ...commands.map((command) => ({
        tool_calls: [{ name: 'terminal', arguments: { command } }],
      })),
      {
        tool_calls: [
          { name: 'file_editor', arguments: { command: 'view', path: `${outside}/secret.txt` } },
        ],
      },
      { tool_calls: [{ name: 'file_editor', arguments: { command: 'view', path: outside } }] },
      {
        tool_calls: [
          {
            name: 'file_editor',
            arguments: { command: 'create', path: `${outside}/planted.txt`, file_text: 'x' },
          },
        ],
      },
      {
        tool_calls: [
          {
            name: 'execute_ipython_cell',
            arguments: { code: `print(open(${JSON.stringify(`${outside}/secret.txt`)}).read())` },
          },
        ],
      },
      {
        tool_calls: [
          { name: 'browser', arguments: { code: `goto("file://${outside}/secret.txt")` } },
        ],
      },
      { tool_calls: [{ name: 'finish', arguments: { message: 'done' } }] },
    ];
    const created = await post('/api/conversations', {
      workspace: { kind: 'LocalWorkspace', working_dir: scratch.workingDir },
      agent: {
        kind: 'Agent',
        llm: { kind: 'ScriptedLLM', script },
        tools: [
          { name: 'TerminalTool' },
          { name: 'FileEditorTool' },
          { name: 'IPythonTool' },
          { name: 'BrowserTool' },
        ],
      },
      max_iterations: script.length + 2,
      initial_message: { role: 'user', content: [{ type: 'text', text: 'get out' }], run: true },
    });
    expect(created.status).toBe(201);
    const id = (created.json as { id: string }).id;
    let status = '';
    for (let round = 0; round < 600 && status !== 'finished' && status !== 'error'; round++) {
      await sleep(500);
      status = ((await get(`/api/conversations/${id}`)).json as { execution_status: string })
        .execution_status;
    }
    expect(status).toBe('finished');
    let page: string | null = null;
    let events = 0;
    do {
      const query = `limit=100${page ? `&page_id=${page}` : ''}`;
      const answer = await get(`/api/conversations/${id}/events/search?${query}`);
      const body = answer.json as { items: unknown[]; next_page_id: string | null };
      events += body.items.length;
      for (const item of body.items) record('conversation event', JSON.stringify(item));
      page = body.next_page_id;
    } while (page);
    expect(events).toBeGreaterThan(script.length);
    expect(existsSync(`${outside}/planted.txt`)).toBe(false);
  }, 300_000);

  it('logs each egress refusal with the command that asked', () => {
    const refusals = server.logs.filter((line) => line.component === 'egress');
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals).toContainEqual(
      expect.objectContaining({
        host: '127.0.0.1',
        port: unlistedPort,
        source: expect.stringMatching(/^command-[0-9a-f]{32}$/),
      }),
    );
  });

  it('let nothing out on any path', () => {
    const leaked = answers.flatMap((answer) =>
      leaksIn(answer.text).map((secret) => `${answer.path}: ${secret}`),
    );
    expect(leaked).toEqual([]);
    // Nor do the server's own logs carry a key.
    const logs = JSON.stringify(server.logs) + server.stderr;
    expect(logs).not.toContain(KEY);
    expect(logs).not.toContain(SECOND_KEY);
    expect(logs).not.toContain(MODEL_KEY);
    figures.note = `${answers.length} answers searched for 5 secrets`;
  });
});

describe('what an agent started, and a killed server', () => {
  const figures = new Figures('trust boundary: agent processes after kill -9');

  it('leaves no conversation command running once the next server starts', async () => {
    const scratch = await createScratch('conversation-kill');
    const pidFile = path.join(scratch.workingDir, 'sleeper.pid');
    let first: ServerProcess | undefined;
    try {
      first = await ServerProcess.start({
        workingDir: scratch.workingDir,
        runtimeDir: scratch.runtimeDir,
      });
      const created = await call(`${first.url}/api/conversations`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({
          workspace: { kind: 'LocalWorkspace', working_dir: scratch.workingDir },
          agent: {
            kind: 'Agent',
            llm: {
              kind: 'ScriptedLLM',
              script: [
                {
                  tool_calls: [
                    {
                      name: 'terminal',
                      arguments: { command: `sleep 1000 & echo $! > ${pidFile}; sleep 1000` },
                    },
                  ],
                },
              ],
            },
            tools: [{ name: 'TerminalTool' }],
          },
          initial_message: { role: 'user', content: [{ type: 'text', text: 'sleep' }], run: true },
        }),
      });
      expect(created.status).toBe(201);
      figures.tried++;
      for (let round = 0; round < 200 && !existsSync(pidFile); round++) await sleep(100);
      const sleeper = Number((await readFile(pidFile, 'utf8')).trim());
      expect(isAlive(sleeper)).toBe(true);
      // Killed without closing, its command lives on until the next start sweeps it.
      expect(await runningAfterNextStart(first, scratch, [sleeper], [sleeper])).toEqual([]);
    } finally {
      first?.kill('SIGKILL');
      figures.save();
      await scratch.remove();
    }
  }, 120_000);

  it.skipIf(kernelSkipReason('a kernel after kill -9'))(
    'leaves no kernel, nor a process a cell started, running once the next server starts',
    async () => {
      const scratch = await createScratch('kernel-kill');
      const pidFile = path.join(scratch.workingDir, 'kernel.pids');
      let first: ServerProcess | undefined;
      try {
        first = await ServerProcess.start({
          workingDir: scratch.workingDir,
          runtimeDir: scratch.runtimeDir,
          flags: ['--plugin', 'python'],
        });
        await pluginsReady(first.url);
        const code = [
          'import os, subprocess',
          "sleeper = subprocess.Popen(['sleep', '1000'])",
          `open(${JSON.stringify(pidFile)}, 'w').write(f'{os.getpid()} {sleeper.pid}')`,
        ].join('\n');
        const answer = await call(`${first.url}/execute_action`, {
          method: 'POST',
          headers: { ...AUTH, 'content-type': 'application/json' },
          body: JSON.stringify({ action: { action: 'run_ipython', args: { code } } }),
          timeoutMs: 60_000,
        });
        expect(answer.status, answer.text).toBe(200);
        figures.tried++;
        const pids = (await readFile(pidFile, 'utf8')).trim().split(' ').map(Number);
        expect(pids.filter(isAlive)).toHaveLength(2);
        // The kernel may notice it is orphaned and exit; what its cell started lives on until
        // the next start sweeps it (found by the instance variable in its environment).
        const [, sleeper] = pids as [number, number];
        expect(await runningAfterNextStart(first, scratch, pids, [sleeper])).toEqual([]);
      } finally {
        first?.kill('SIGKILL');
        figures.save();
        await scratch.remove();
      }
    },
    180_000,
  );

  /**
   * Kills `first` (`kill -9`), checks that `survivors` outlive it, starts the next server on the
   * same runtime directory and returns which of `pids` still run once its sweep had 10 s.
   */
  async function runningAfterNextStart(
    first: ServerProcess,
    scratch: Scratch,
    pids: number[],
    survivors: number[],
  ): Promise<number[]> {
    first.kill('SIGKILL');
    await first.exited;
    expect(survivors.filter(isAlive)).toEqual(survivors);
    const second = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
    });
    try {
      const running = () => pids.filter(isAlive);
      for (let round = 0; round < 100 && running().length > 0; round++) await sleep(100);
      if (running().length > 0) figures.escapes++;
      else figures.rejected++;
      return running();
    } finally {
      await second.stop();
    }
  }
});

/** True while `pid` runs (a zombie counts as gone). */
function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits until every plugin of the server at `url` is ready; throws if one fails, or after 4 minutes. */
async function pluginsReady(url: string): Promise<void> {
  for (let round = 0; round < 480; round++) {
    const info = (await call(`${url}/server_info`, { headers: AUTH })).json as {
      plugins: { name: string; state: string }[];
    };
    const failed = info.plugins.filter(
      (plugin) => plugin.state !== 'starting' && plugin.state !== 'ready',
    );
    if (failed.length > 0)
      throw new Error(`plugins of ${url} did not start: ${JSON.stringify(failed)}`);
    if (info.plugins.every((plugin) => plugin.state === 'ready')) return;
    await sleep(500);
  }
  throw new Error(`the plugins of ${url} were not ready within 4 minutes`);
}
