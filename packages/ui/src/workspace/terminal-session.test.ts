import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentServerClient } from '../api/agent-server-client.js';
import { TerminalSession, type TerminalStatus } from './terminal-session.js';

const ID = 'a'.repeat(32);
const mark = (kind: string, status: number, cwd: string): string =>
  `\x1b]6973;${kind};${status};${cwd}\x07`;

/** A stand-in for the browser's WebSocket: records frames, lets the test play the server. */
class FakeSocket extends EventTarget {
  readonly sent: Record<string, unknown>[] = [];
  closed = false;
  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }
  close(): void {
    this.closed = true;
  }
  open(): void {
    this.dispatchEvent(new Event('open'));
  }
  receive(frame: Record<string, unknown>): void {
    this.dispatchEvent(Object.assign(new Event('message'), { data: JSON.stringify(frame) }));
  }
  drop(code = 1006): void {
    this.dispatchEvent(Object.assign(new Event('close'), { code }));
  }
}

describe('TerminalSession', () => {
  let sockets: FakeSocket[];
  let screen: string;
  let statuses: TerminalStatus[];
  let session: TerminalSession;

  const socket = (): FakeSocket => sockets.at(-1) as FakeSocket;
  const output = (order: number, data: string, stream = 'stdout'): void =>
    socket().receive({ type: 'output', command_id: ID, order, stream, data });

  beforeEach(() => {
    vi.useFakeTimers();
    sockets = [];
    screen = '';
    statuses = [];
    const client = {
      socket: () => {
        const created = new FakeSocket();
        sockets.push(created);
        return created;
      },
    } as unknown as AgentServerClient;
    session = new TerminalSession({
      client,
      workingDir: '/work/project',
      write: (text) => {
        screen += text;
      },
      onStatus: (status) => statuses.push(status),
    });
    socket().open();
  });

  afterEach(() => {
    session.dispose();
    vi.useRealTimers();
  });

  /** Answers the shell's `start` and shows its first prompt. */
  function startShell(): void {
    const start = socket().sent[0] as { request_id: string };
    socket().receive({ type: 'started', command_id: ID, request_id: start.request_id, pid: 1 });
    output(0, mark('ready', 0, '/work/project'));
  }

  it('starts one long-lived shell with stdin in the working directory and shows its prompt', () => {
    expect(socket().sent).toEqual([
      expect.objectContaining({ type: 'start', cwd: '/work/project', stdin: true }),
    ]);
    startShell();
    expect(statuses.at(-1)).toEqual({ kind: 'connected' });
    expect(screen).toBe('\x1b[1;34mproject\x1b[0m $ ');
  });

  it('writes each entered line to the shell and prompts with the new directory and status', () => {
    startShell();
    session.input('cd sub\r');
    expect(socket().sent.at(-1)).toEqual({ type: 'stdin', command_id: ID, data: 'cd sub\n' });
    screen = '';
    output(1, `some output${mark('done', 1, '/work/project/sub')}`);
    expect(screen).toBe('some output\r\n\x1b[31m[1]\x1b[0m \x1b[1;34msub\x1b[0m $ ');
  });

  it('sends SIGINT on Ctrl+C only while a line runs', () => {
    startShell();
    session.input('\x03');
    expect(socket().sent).toHaveLength(1);
    session.input('sleep 30\r\x03');
    expect(socket().sent.at(-1)).toEqual({ type: 'signal', command_id: ID, signal: 'SIGINT' });
  });

  it('shows a line typed ahead after the prompt of the line before', () => {
    startShell();
    session.input('sleep 1\recho next\r');
    screen = '';
    output(1, mark('done', 0, '/w'));
    expect(screen).toBe('\x1b[1;34mw\x1b[0m $ echo next\r\n');
    output(2, `next\n${mark('done', 0, '/w')}`);
    expect(screen.endsWith('next\n\x1b[1;34mw\x1b[0m $ ')).toBe(true);
  });

  it('re-attaches after the last order when the socket drops, and skips repeats', () => {
    startShell();
    session.input('echo a\r');
    output(1, 'a\n');
    socket().drop();
    expect(statuses.at(-1)).toEqual({ kind: 'reconnecting', inSeconds: 1 });
    session.input('echo b\r');
    vi.advanceTimersByTime(500);
    expect(sockets).toHaveLength(2);
    socket().open();
    expect(socket().sent).toEqual([
      { type: 'attach', command_id: ID, after_order: 1 },
      { type: 'stdin', command_id: ID, data: 'echo b\n' },
    ]);
    screen = '';
    output(1, 'a\n');
    output(2, 'b\n');
    expect(screen).toBe('b\n');
  });

  it('starts a new shell in the last directory after the shell exited', () => {
    startShell();
    session.input('cd /tmp\r');
    output(1, mark('done', 0, '/tmp'));
    socket().receive({
      type: 'exit',
      command_id: ID,
      order: 2,
      exit_code: 0,
      timeout_occurred: false,
      duration_ms: 5,
    });
    expect(screen).toContain('[the shell exited with status 0]');
    session.input('pwd\r');
    expect(socket().sent.at(-1)).toEqual(expect.objectContaining({ type: 'start', cwd: '/tmp' }));
  });

  it('stops on a refused session key and closes its socket when disposed', () => {
    socket().drop(4001);
    expect(statuses.at(-1)).toEqual({
      kind: 'failed',
      detail: 'the server refused the session key',
    });
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    session.dispose();
    expect(socket().closed).toBe(true);
  });
});
