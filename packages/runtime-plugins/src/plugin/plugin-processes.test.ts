import { text } from 'node:stream/consumers';
import { afterEach, describe, expect, it } from 'vitest';
import { PluginProcesses } from './plugin-processes.js';

const printEnvironment = {
  file: '/bin/sh',
  args: ['-c', 'printf "%s|%s|%s" "$HOST_VALUE" "$OWN_VALUE" "$SESSION_API_KEY"'],
  cwd: '/',
};

describe('PluginProcesses', () => {
  const saved = process.env.SESSION_API_KEY;
  afterEach(() => {
    if (saved === undefined) delete process.env.SESSION_API_KEY;
    else process.env.SESSION_API_KEY = saved;
  });

  it("starts a process with the host's environment and its own variables on top", async () => {
    const processes = new PluginProcesses({
      environment: { PATH: '/usr/bin:/bin', HOST_VALUE: 'host', OWN_VALUE: 'host' },
    });
    const child = processes.start({ ...printEnvironment, env: { OWN_VALUE: 'own' } });
    const [output, exit] = await Promise.all([text(child.stdout!), child.exit]);
    expect(exit.code).toBe(0);
    expect(output).toBe('host|own|');
  });

  it("defaults to this process's environment without the server's keys", async () => {
    process.env.SESSION_API_KEY = 'server-key-never-for-plugins';
    process.env.HOST_VALUE = 'inherited';
    try {
      const child = new PluginProcesses().start(printEnvironment);
      const [output] = await Promise.all([text(child.stdout!), child.exit]);
      expect(output).toBe('inherited||');
    } finally {
      delete process.env.HOST_VALUE;
    }
  });

  it('leads a new process group when detached', async () => {
    const child = new PluginProcesses().start({
      file: '/bin/sh',
      // The fifth field of /proc/<pid>/stat is the process group.
      args: ['-c', 'cut -d " " -f 5 /proc/$$/stat'],
      cwd: '/',
      detached: true,
    });
    const [output] = await Promise.all([text(child.stdout!), child.exit]);
    expect(Number(output.trim())).toBe(child.pid);
  });
});
