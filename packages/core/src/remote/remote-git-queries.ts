import type { GitChange, GitCommitsPage, GitDiff } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES, gitCommitChangesPath } from '@agent-workspace/protocol/constants';
import type { AgentServerClient } from './agent-server-client.js';
import { loadWireSchemas, type WireSchemas } from './load-wire-schemas.js';
import { remoteGit } from './remote-git.js';

/** The git routes of one agent-server (see {@link remoteGit}), cut short by `signal`. */
export class RemoteGitQueries {
  readonly #client: AgentServerClient;
  readonly #signal: AbortSignal;

  /** `signal` is the transport's: it fires when the workspace closes. */
  constructor(client: AgentServerClient, signal: AbortSignal) {
    this.#client = client;
    this.#signal = signal;
  }

  /** The changed paths of the repository at `repositoryPath`, against `ref` when given. */
  changes(repositoryPath: string, query: { ref?: string | undefined } = {}): Promise<GitChange[]> {
    return this.#get(AGENT_SERVER_ROUTES.gitChanges, repositoryPath, query, (schemas, json) =>
      schemas.gitChangeWireSchema.array().parse(json),
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
  ): Promise<T> {
    const schemas = await loadWireSchemas();
    return remoteGit({
      client: this.#client,
      path,
      target,
      query,
      parse: (json) => parse(schemas, json),
      signal: this.#signal,
    });
  }
}
