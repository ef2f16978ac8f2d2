import type { CommandSandbox } from '@agent-workspace/core';
import { assertRepositoryInside, runGit } from '@agent-workspace/core/internal';

/** Where git runs for {@link archiveRepositoryHeaders}. */
export interface ArchiveRepositoryPlace {
  /** Directory git runs in (the archived repository's work tree). */
  cwd: string;
  /** Real path of the repository, sent as `X-Archive-Repo-Root`. */
  realPath: string;
  sandbox?: CommandSandbox | undefined;
  confineTo?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** Parts of a query parameter name that mark its value as a secret (OpenHands' list). */
const SECRET_NAME_PARTS = [
  'AUTHORIZATION',
  'COOKIE',
  'CREDENTIAL',
  'KEY',
  'PASSWORD',
  'SECRET',
  'SESSION',
  'TOKEN',
];

/**
 * OpenHands' repository identity headers of an archive: `X-Archive-Repo-Remote` (origin's URL
 * with credentials and secret query values redacted), `X-Archive-Branch` (`DETACHED` when HEAD
 * is), `X-Archive-Head-Commit` and `X-Archive-Repo-Root`, each percent-encoded as OpenHands does.
 * Best effort: what git cannot tell is left out, and nothing at all for a repository that
 * reaches outside `confineTo`.
 */
export async function archiveRepositoryHeaders(
  place: ArchiveRepositoryPlace,
): Promise<Record<string, string>> {
  const git = {
    cwd: place.cwd,
    sandbox: place.sandbox,
    confineTo: place.confineTo,
    signal: place.signal,
  };
  const headers: Record<string, string> = {};
  try {
    await assertRepositoryInside(git);
  } catch {
    return headers; // a repository reaching outside confinement tells nothing about itself
  }
  const remote = await runGit(['remote', 'get-url', 'origin'], git);
  const url = remote.stdout.trim();
  if (remote.exitCode === 0 && url !== '') {
    headers['x-archive-repo-remote'] = percentEncode(redactQuery(redactCredentials(url)));
  }
  const head = await runGit(['rev-parse', 'HEAD', '--abbrev-ref', 'HEAD'], git);
  const lines = head.stdout.trim().split('\n');
  if (head.exitCode === 0 && lines.length === 2) {
    const [commit, branch] = lines as [string, string];
    headers['x-archive-branch'] = percentEncode(branch === 'HEAD' ? 'DETACHED' : branch);
    headers['x-archive-head-commit'] = percentEncode(commit);
  }
  headers['x-archive-repo-root'] = percentEncode(place.realPath);
  return headers;
}

/** `https://user:token@host` → `https://****@host`, wherever it appears. */
function redactCredentials(text: string): string {
  return text.replace(/(https?:\/\/)[^/@\s]+@/gi, '$1****@');
}

/** Replaces the values of secret-looking query parameters with `<redacted>` (encoded). */
function redactQuery(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const fragmentAt = url.indexOf('#', start);
  const end = fragmentAt === -1 ? url.length : fragmentAt;
  const query = url
    .slice(start + 1, end)
    .split('&')
    .map((pair) => {
      const name = pair.split('=')[0] ?? '';
      return isSecretName(decodeOrKeep(name)) ? `${name}=%3Credacted%3E` : pair;
    })
    .join('&');
  return `${url.slice(0, start + 1)}${query}${url.slice(end)}`;
}

function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  // OpenHands' exact names (`api_key`, `access_token`, ...) all contain one of these parts.
  return SECRET_NAME_PARTS.some((part) => upper.includes(part));
}

function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

/** Python's `quote(value, safe="")`: everything but letters, digits and `_.-~` escaped. */
function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
