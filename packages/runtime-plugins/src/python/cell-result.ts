/**
 * How a cell ended: `ok`; `error` (it raised); `interrupted` (by {@link KernelSession.interrupt},
 * its signal, a restart or close); `timeout` (stopped at its time limit); `died` (the kernel
 * process died under it).
 */
export type CellStatus = 'ok' | 'error' | 'interrupted' | 'timeout' | 'died';

/** What {@link KernelSession.execute} answers. */
export interface CellResult {
  status: CellStatus;
  /** What the cell printed and showed, in order (tracebacks without ANSI escapes). */
  text: string;
  /** PNG and JPEG outputs as `data:` URLs, in order. */
  images: string[];
  /** The cell's `In [n]`, when the kernel answered. */
  executionCount: number | null;
  /** The kernel's working directory after the cell; only known when the cell succeeded. */
  cwd: string | undefined;
  /** The kernel process that ran the cell, if one did. */
  pid: number | undefined;
  /** True when the kernel died or was restarted during the cell: its variables are gone. */
  stateLost: boolean;
  /** What happened to the kernel, when something did (it died, it was restarted). */
  note: string | undefined;
}

/** The result of a cell that never reached a kernel: no output, no kernel, state kept. */
export function emptyCellResult(status: CellStatus, note: string): CellResult {
  return {
    status,
    text: '',
    images: [],
    executionCount: null,
    cwd: undefined,
    pid: undefined,
    stateLost: false,
    note,
  };
}
