import { useEffect, useRef, useState } from 'preact/hooks';
import { useClient } from '../app/client-context.js';
import { TerminalSession, type TerminalStatus } from './terminal-session.js';
import './terminal.css';

/** Props of {@link TerminalView}. */
export interface TerminalViewProps {
  /** Where commands start, or `null` for the server's working directory. */
  readonly workingDir: string | null;
}

/**
 * A live terminal on the exec socket, for a person to run commands beside the agent: a
 * line-mode shell ({@link TerminalSession}) shown in xterm.js, which is loaded on first render
 * so the page does not wait for it. A new working directory starts a new session.
 */
export function TerminalView({ workingDir }: TerminalViewProps) {
  const client = useClient();
  const screen = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState<TerminalStatus>({ kind: 'connecting' });

  useEffect(() => {
    let closed = false;
    let cleanup: (() => void) | undefined;
    setStatus({ kind: 'connecting' });
    import('./terminal-xterm.js').then(
      ({ openXterm }) => {
        if (closed || !screen.current) return;
        const xterm = openXterm(screen.current);
        const session = new TerminalSession({
          client,
          workingDir,
          write: (text) => xterm.terminal.write(text),
          onStatus: setStatus,
        });
        const input = xterm.terminal.onData((data) => session.input(data));
        cleanup = () => {
          input.dispose();
          session.dispose();
          xterm.dispose();
        };
      },
      (error: unknown) => {
        if (!closed)
          setStatus({ kind: 'failed', detail: `cannot load the terminal (${String(error)})` });
      },
    );
    return () => {
      closed = true;
      cleanup?.();
    };
  }, [client, workingDir]);

  return (
    <section aria-label="Terminal" class="terminal">
      {status.kind === 'failed' ? (
        <p role="alert" class="terminal-status error">
          Terminal: {status.detail}
        </p>
      ) : (
        <p role="status" class="terminal-status">
          {describeStatus(status)}
        </p>
      )}
      <div ref={screen} class="terminal-screen" />
    </section>
  );
}

function describeStatus(status: Exclude<TerminalStatus, { kind: 'failed' }>): string {
  switch (status.kind) {
    case 'connecting':
      return 'Connecting…';
    case 'reconnecting':
      return `Connection lost; reconnecting in ${status.inSeconds} s…`;
    case 'connected':
      return 'Line mode: Enter runs the line, Ctrl+C interrupts, Ctrl+D ends input.';
  }
}
