import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Figures } from './figures.js';
import {
  createScratch,
  type Scratch,
  ServerProcess,
  type ServerProcessOptions,
} from './server-process.js';

/** A {@link Scratch} with a `state` directory (outside the working directory) for `--state-dir`. */
export interface StateScratch extends Scratch {
  /** `base/state`, created. */
  stateDir: string;
}

/** Creates the directories of one test, with an empty state directory. */
export async function createStateScratch(name: string): Promise<StateScratch> {
  const scratch = await createScratch(name);
  const stateDir = path.join(scratch.base, 'state');
  mkdirSync(stateDir);
  return { ...scratch, stateDir };
}

/** Starts the built server in `scratch`, keeping conversations in its state directory. */
export function startStateServer(
  scratch: StateScratch,
  options: Partial<ServerProcessOptions> = {},
): Promise<ServerProcess> {
  return ServerProcess.start({
    workingDir: scratch.workingDir,
    runtimeDir: scratch.runtimeDir,
    flags: ['--state-dir', scratch.stateDir],
    ...options,
  });
}

/** Records the server's peak memory in `figures`, saves them, stops the server, removes `scratch`. */
export async function finishScenario(
  figures: Figures,
  server: ServerProcess | undefined,
  scratch: Scratch | undefined,
): Promise<void> {
  figures.observeRss(server?.peakRss ?? 0);
  figures.save();
  await server?.stop();
  await scratch?.remove();
}
