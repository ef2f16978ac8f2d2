import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';

/** An xterm.js terminal in a container, sized to it. */
export interface XtermHandle {
  readonly terminal: Terminal;
  /** Stops following the container's size and disposes the terminal. */
  dispose(): void;
}

/**
 * Opens xterm.js (DOM renderer, screen-reader mode, `\n` shown as a new line, Backspace across
 * wrapped lines) in `container` and
 * keeps its rows and columns fitted to the container. Loaded with `import()` by `TerminalView`,
 * so the page's first paint does not wait for xterm.
 */
export function openXterm(container: HTMLElement): XtermHandle {
  const terminal = new Terminal({
    convertEol: true,
    cursorBlink: true,
    fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace',
    fontSize: 13,
    screenReaderMode: true,
    scrollback: 5000,
  });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  terminal.open(container);
  terminal.textarea?.setAttribute('aria-label', 'Terminal input');
  // Reverse wraparound: the echo's Backspace may erase back across a wrapped line.
  terminal.write('\x1b[?45h');
  const refit = (): void => {
    // A hidden container (another tab shown) has no size to fit.
    if (container.clientWidth > 0 && container.clientHeight > 0) fit.fit();
  };
  refit();
  const observer = new ResizeObserver(refit);
  observer.observe(container);
  return {
    terminal,
    dispose: () => {
      observer.disconnect();
      terminal.dispose();
    },
  };
}
