import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CommandSandbox } from '@agent-workspace/core';
import { shellQuote } from '@agent-workspace/core/internal';

/** Options of {@link writeSandboxLauncher}. */
export interface WriteSandboxLauncherOptions {
  sandbox: CommandSandbox;
  /** The Chromium binary, as the sandbox shows it (the system's, at the same path). */
  executablePath: string;
  /** Chromium's working directory inside. */
  cwd: string;
  /** Where the launcher is written (the plugin's state directory). */
  dir: string;
}

/** Name of the launcher in its directory. */
export const SANDBOX_LAUNCHER_NAME = 'chromium-in-sandbox.sh';

/**
 * Writes the script Playwright launches instead of Chromium: `exec` of the sandbox's host-side
 * launch of `executablePath` with the arguments Playwright gives (`"$@"`), so Chromium runs inside
 * the sandbox with the descriptors Playwright hands it (`--remote-debugging-pipe` uses 3 and 4).
 * Written anew for each launch, as `wrap` throws `SANDBOX_EXITED` once the sandbox is gone.
 * Resolves to the script's path; its directory must not be mounted `noexec`.
 */
export async function writeSandboxLauncher(options: WriteSandboxLauncherOptions): Promise<string> {
  const launch = options.sandbox.wrap({ file: options.executablePath, args: [], cwd: options.cwd });
  const script = [
    '#!/bin/sh',
    '# Written by the browser plugin of @agent-workspace/runtime-plugins: Chromium in the sandbox.',
    `cd ${shellQuote(launch.cwd)} || exit 1`,
    `exec ${[launch.file, ...launch.args].map(shellQuote).join(' ')} "$@"`,
    '',
  ].join('\n');
  const file = path.join(options.dir, SANDBOX_LAUNCHER_NAME);
  await writeFile(file, script, { mode: 0o700 });
  await chmod(file, 0o700);
  return file;
}
