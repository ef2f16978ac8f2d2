import {
  AGENT_SERVER_ROUTES,
  fromGitCommitsPageWire,
  type GitChange,
  type GitCommitsPage,
  type GitDiff,
  gitChangeWireSchema,
  gitCommitChangesPath,
  gitCommitsPageWireSchema,
  gitDiffWireSchema,
} from '@agent-workspace/protocol';
import { z } from 'zod';
import type { AgentServerClient } from './agent-server-client.js';
import { remoteGit } from './remote-git.js';

const gitChangesSchema = z.array(gitChangeWireSchema);

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
    return this.#get(AGENT_SERVER_ROUTES.gitChanges, repositoryPath, query, (json) =>
      gitChangesSchema.parse(json),
    );
  }

  /** The current and base content of the file at `filePath` (or as commit `commit` changed it). */
  diff(
    filePath: string,
    query: { ref?: string | undefined; commit?: string | undefined } = {},
  ): Promise<GitDiff> {
    return this.#get(AGENT_SERVER_ROUTES.gitDiff, filePath, query, (json) =>
      gitDiffWireSchema.parse(json),
    );
  }

  /** `GET /api/git/commits`: the most recent commits of the repository at `repositoryPath`. */
  commits(repositoryPath: string, limit: number | undefined): Promise<GitCommitsPage> {
    const query = { limit: limit === undefined ? undefined : String(limit) };
    return this.#get(AGENT_SERVER_ROUTES.gitCommits, repositoryPath, query, (json) =>
      fromGitCommitsPageWire(gitCommitsPageWireSchema.parse(json)),
    );
  }

  /** `GET /api/git/commits/{sha}/changes`: what commit `sha` changed. */
  commitChanges(repositoryPath: string, sha: string): Promise<GitChange[]> {
    return this.#get(gitCommitChangesPath(sha), repositoryPath, {}, (json) =>
      gitChangesSchema.parse(json),
    );
  }

  #get<T>(
    path: string,
    target: string,
    query: Record<string, string | undefined>,
    parse: (json: unknown) => T,
  ): Promise<T> {
    return remoteGit({ client: this.#client, path, target, query, parse, signal: this.#signal });
  }
}
