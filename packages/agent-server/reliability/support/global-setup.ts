import { existsSync, rmSync } from 'node:fs';
import { FIGURES_FILE, formatFigures, readFigures } from './figures.js';
import { CLI_PATH } from './server-process.js';

/** Checks that the server is built, starts a fresh figures file, prints the table at the end. */
export default function setup(): () => void {
  if (!existsSync(CLI_PATH)) {
    throw new Error(
      `${CLI_PATH} is missing: build first (pnpm --filter @agent-workspace/agent-server build)`,
    );
  }
  rmSync(FIGURES_FILE, { force: true });
  return () => {
    const figures = readFigures();
    if (figures.scenarios.length === 0) return;
    console.log(
      `\nagent-server reliability figures (${FIGURES_FILE}):\n${formatFigures(figures)}\n`,
    );
  };
}
