import { access, readFile, realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';

/** Where the image's build context comes from. */
export interface AgentServerPackage {
  /** The package folder, the root of the build context. */
  dir: string;
  /** `<dir>/Dockerfile`. */
  dockerfilePath: string;
  /** `<dir>/dist/bundle`: the single-file bundle and its `static/` assets. */
  bundleDir: string;
  /** The package version (`VERSION` build argument). */
  version: string;
}

/**
 * Locates the Dockerfile and the built bundle: in `dir` when given (a folder laid out like the
 * package), else in the installed `@agent-workspace/agent-server` package. Throws a
 * `PROVISIONING_ERROR` {@link WorkspaceError} saying how to build the bundle when it is missing.
 */
export async function resolveAgentServerPackage(dir?: string): Promise<AgentServerPackage> {
  const packageDir =
    dir ??
    (await realpath(
      path.dirname(
        createRequire(import.meta.url).resolve('@agent-workspace/agent-server/package.json'),
      ),
    ));
  const dockerfilePath = path.join(packageDir, 'Dockerfile');
  const bundleDir = path.join(packageDir, 'dist/bundle');
  for (const [file, hint] of [
    [dockerfilePath, 'the package is incomplete'],
    [
      path.join(bundleDir, 'agent-server.mjs'),
      'build it with `pnpm --filter @agent-workspace/agent-server build`',
    ],
  ] as const) {
    await access(file).catch((error: unknown) => {
      throw new WorkspaceError({
        code: 'PROVISIONING_ERROR',
        message: `the agent-server image cannot be built: ${file} is missing (${hint})`,
        cause: error,
        details: { file },
      });
    });
  }
  const manifest = await readFile(path.join(packageDir, 'package.json'), 'utf8').catch(() => '{}');
  const version = (JSON.parse(manifest) as { version?: string }).version ?? '0.0.0-dev';
  return { dir: packageDir, dockerfilePath, bundleDir, version };
}
