import { formatMebibytes, type ProcessTreeWatch } from '@agent-workspace/runtime-plugins';

/** A command's registration with the memory monitor. */
export interface CommandMemoryWatch {
  /** Unregisters the command (it finished). */
  stop(): void;
  /** What the command's stderr was told when the monitor killed it; empty otherwise. */
  readonly note: string;
}

/**
 * Registers a command's process tree with the memory monitor (`watch`, when the server has one):
 * once the tree uses more than the limit, the monitor kills it and `onKilled` gets the line for
 * the command's stderr saying how much it used.
 */
export function watchCommandMemory(
  watch: ((tree: ProcessTreeWatch) => () => void) | undefined,
  commandId: string,
  pid: number | undefined,
  onKilled: (note: string) => void,
): CommandMemoryWatch {
  const state = { note: '' };
  const stop =
    pid === undefined || watch === undefined
      ? () => {}
      : watch({
          label: `command ${commandId}`,
          pid,
          onExceeded: ({ rssBytes, limitBytes }) => {
            state.note = `\n[agent-server: the command was killed: its processes used ${formatMebibytes(rssBytes)} of memory, over the limit of ${formatMebibytes(limitBytes)} per process tree]\n`;
            onKilled(state.note);
          },
        });
  return {
    stop,
    get note() {
      return state.note;
    },
  };
}
