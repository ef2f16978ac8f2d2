import type { GitChange, GitCommitsPage, GitDiff } from '@agent-workspace/protocol';
import {
  AGENT_SERVER_ROUTES,
  GIT_CHANGES_TRUNCATED_HEADER,
  GIT_CHANGES_TRUNCATIONS,
  gitCommitChangesPath,
} from '@agent-workspace/protocol/constants';
import type { GitChangesOptions } from '../workspace/git-changes-options.js';
import type { AgentServerClient } from './agent-server-client.js';
import { loadWireSchemas, type WireSchemas } from './load-wire-schemas.js';
import { type RemoteGitOptions, remoteGit } from './remote-git.js';

/** The git routes of one agent-server (see {@link remoteGit}), cut short by `signal`. */
export class RemoteGitQueries {
  readonly #client: AgentServerClient;
  readonly #signal: AbortSignal;

  /** `signal` is the transport's: it fires when the workspace closes. */
  constructor(client: AgentServerClient, signal: AbortSignal) {
    this.#client = client;
    this.#signal = signal;
  }

  /**
   * The changed paths of the repository at `repositoryPath`, against `ref` when given; the
   * server's `GIT_CHANGES_TRUNCATED_HEADER` goes to `onTruncated` (a bound this client does not
   * know is left out).
   */
  changes(
    repositoryPath: string,
    { ref, onTruncated }: GitChangesOptions = {},
  ): Promise<GitChange[]> {
    return this.#get(
      AGENT_SERVER_ROUTES.gitChanges,
      repositoryPath,
      { ref },
      (schemas, json) => schemas.gitChangeWireSchema.array().parse(json),
      (headers) => {
        const bound = headers[GIT_CHANGES_TRUNCATED_HEADER];
        const known = GIT_CHANGES_TRUNCATIONS.find((name) => name === bound);
        if (known !== undefined) onTruncated?.(known);
      },
    );
  }

  /** The current and base content of the file at `filePath` (or as commit `commit` changed it). */
  diff(
    filePath: string,
    query: { ref?: string | undefined; commit?: string | undefined } = {},
  ): Promise<GitDiff> {
    return this.#get(AGENT_SERVER_ROUTES.gitDiff, filePath, query, (schemas, json) =>
      schemas.gitDiffWireSchema.parse(json),
    );
  }

  /** `GET /api/git/commits`: the most recent commits of the repository at `repositoryPath`. */
  commits(repositoryPath: string, limit: number | undefined): Promise<GitCommitsPage> {
    const query = { limit: limit === undefined ? undefined : String(limit) };
    return this.#get(AGENT_SERVER_ROUTES.gitCommits, repositoryPath, query, (schemas, json) =>
      schemas.fromGitCommitsPageWire(schemas.gitCommitsPageWireSchema.parse(json)),
    );
  }

  /** `GET /api/git/commits/{sha}/changes`: what commit `sha` changed. */
  commitChanges(repositoryPath: string, sha: string): Promise<GitChange[]> {
    return this.#get(gitCommitChangesPath(sha), repositoryPath, {}, (schemas, json) =>
      schemas.gitChangeWireSchema.array().parse(json),
    );
  }

  /** `remoteGit` with `parse` given the wire schemas (loaded on the first query). */
  async #get<T>(
    path: string,
    target: string,
    query: Record<string, string | undefined>,
    parse: (schemas: WireSchemas, json: unknown) => T,
    onHeaders?: RemoteGitOptions<T>['onHeaders'],
  ): Promise<T> {
    const schemas = await loadWireSchemas();
    return remoteGit({
      client: this.#client,
      path,
      target,
      query,
      parse: (json) => parse(schemas, json),
      onHeaders,
      signal: this.#signal,
    });
  }
}
