import { access, readFile, realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { WorkspaceError } from '@agent-workspace/core';

/** The package whose Dockerfile and bundle make the image: an optional peer dependency. */
const AGENT_SERVER_PACKAGE = '@agent-workspace/agent-server';

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

/** Options of {@link resolveAgentServerPackage}. */
export interface ResolveAgentServerPackageOptions {
  /** A folder laid out like the agent-server package; when given, nothing is looked up. */
  dir?: string;
  /**
   * Where to look for the installed package, in order (module URLs or file paths).
   * @default this package, then the current directory's project (pnpm links a peer dependency
   *   of this package only when the application installed it)
   */
  searchFrom?: readonly string[];
}

/**
 * Locates the Dockerfile and the built bundle: in `dir` when given (a folder laid out like the
 * package), else in the installed `@agent-workspace/agent-server` package, an optional peer
 * dependency needed only to build images. Throws a `PROVISIONING_ERROR` {@link WorkspaceError}
 * with the install command when the package is not installed, or saying how to build the bundle
 * when it is missing.
 */
export async function resolveAgentServerPackage(
  options: ResolveAgentServerPackageOptions = {},
): Promise<AgentServerPackage> {
  const packageDir = options.dir ?? (await findInstalledPackage(options.searchFrom));
  const dockerfilePath = path.join(packageDir, 'Dockerfile');
  const bundleDir = path.join(packageDir, 'dist/bundle');
  for (const [file, hint] of [
    [dockerfilePath, 'the package is incomplete'],
    [
      path.join(bundleDir, 'agent-server-launcher.cjs'),
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

/** The folder of the installed agent-server package, from the first place that resolves it. */
async function findInstalledPackage(searchFrom?: readonly string[]): Promise<string> {
  const places = searchFrom ?? [
    import.meta.url,
    pathToFileURL(path.join(process.cwd(), 'package.json')).href,
  ];
  for (const place of places) {
    let manifest: string;
    try {
      manifest = createRequire(place).resolve(`${AGENT_SERVER_PACKAGE}/package.json`);
    } catch {
      continue;
    }
    return realpath(path.dirname(manifest));
  }
  throw new WorkspaceError({
    code: 'PROVISIONING_ERROR',
    message: `the agent-server image cannot be built: ${AGENT_SERVER_PACKAGE} is not installed (an optional peer dependency of @agent-workspace/docker, needed only to build images); install it with: npm install ${AGENT_SERVER_PACKAGE}, or pass agentServerDir (--agent-server-dir) with a folder laid out like it. Running an existing image needs neither.`,
    details: { package: AGENT_SERVER_PACKAGE, install: `npm install ${AGENT_SERVER_PACKAGE}` },
  });
}
