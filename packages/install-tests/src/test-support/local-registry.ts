import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { runServer } from 'verdaccio';

/** Options of {@link startLocalRegistry}. */
export interface LocalRegistryOptions {
  /** Where packages are stored; kept between runs so an unchanged package is not published twice. */
  storageDir: string;
  /** The package scope this registry serves, e.g. `@agent-workspace`. */
  scope: string;
}

/** A Verdaccio registry on 127.0.0.1 that serves one scope, with one publishing user. */
export interface LocalRegistry extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** A token of the publishing user; pass it through the environment, never write it down. */
  readonly token: string;
  /** The `.npmrc` line that points the scope, and only it, here. */
  readonly scopeNpmrc: string;
  /** {@link scopeNpmrc} plus the line that authenticates with the token read from `tokenEnv`. */
  publishNpmrc(tokenEnv: string): string;
}

/**
 * Starts Verdaccio in this process on an ephemeral loopback port. It has no uplinks: the scope
 * is served from `storageDir` alone, every other package comes from the registry the machine
 * already uses. The publishing user is created afresh each start, with a random password.
 */
export async function startLocalRegistry(options: LocalRegistryOptions): Promise<LocalRegistry> {
  const { storageDir, scope } = options;
  const configDir = path.join(storageDir, '..', 'config');
  await mkdir(configDir, { recursive: true });
  const htpasswd = path.join(configDir, 'htpasswd');
  await rm(htpasswd, { force: true });
  const configFile = path.join(configDir, 'config.yaml');
  await writeFile(
    configFile,
    [
      `storage: ${JSON.stringify(storageDir)}`,
      'auth:',
      `  htpasswd: { file: ${JSON.stringify(htpasswd)}, max_users: 1 }`,
      'uplinks: {}',
      'packages:',
      `  '${scope}/*': { access: $all, publish: $authenticated }`,
      'log: { type: stdout, format: pretty, level: error }',
      '',
    ].join('\n'),
  );
  const app = await runServer(configFile);
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    const token = await addUser(url);
    const scopeNpmrc = `${scope}:registry=${url}\n`;
    return {
      url,
      token,
      scopeNpmrc,
      publishNpmrc: (tokenEnv) =>
        `${scopeNpmrc}${url.replace(/^http:/, '')}:_authToken=\${${tokenEnv}}\n`,
      [Symbol.asyncDispose]: () => closeServer(server),
    };
  } catch (error) {
    await closeServer(server);
    throw error;
  }
}

/** Creates the publishing user and returns its token. */
async function addUser(url: string): Promise<string> {
  const name = 'publisher';
  const response = await fetch(new URL(`-/user/org.couchdb.user:${name}`, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: randomBytes(24).toString('base64url') }),
  });
  const body = (await response.json()) as { token?: string; error?: string };
  if (!response.ok || typeof body.token !== 'string') {
    throw new Error(`the local registry refused to add a user: ${response.status} ${body.error}`);
  }
  return body.token;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
