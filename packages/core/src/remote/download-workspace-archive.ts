import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import type { AgentServerClient } from './agent-server-client.js';
import { downloadToFile } from './download-to-file.js';
import type {
  WorkspaceArchiveOptions,
  WorkspaceArchiveResult,
} from './workspace-archive-options.js';

/** Options of {@link downloadWorkspaceArchive}. */
export interface DownloadWorkspaceArchiveOptions extends WorkspaceArchiveOptions {
  client: AgentServerClient;
  /** Absolute directory on the server. */
  sourcePath: string;
  /** Absolute file on this machine the archive is written to. */
  destinationPath: string;
  signal?: AbortSignal | undefined;
}

/**
 * Downloads OpenHands' workspace archive of a server directory (`GET /api/file/archive`) into a
 * local file, streamed into a temporary file beside it and renamed into place. File problems
 * (missing or non-directory source, not a repository, an unknown `baseRef`, a bad destination)
 * are results; transport and auth failures throw, as for `fileDownload`.
 */
export async function downloadWorkspaceArchive(
  options: DownloadWorkspaceArchiveOptions,
): Promise<WorkspaceArchiveResult> {
  const { client, sourcePath, destinationPath, signal } = options;
  const query = new URLSearchParams({ path: sourcePath, format: options.format ?? 'git-delta' });
  if (options.baseRef !== undefined) query.set('base_ref', options.baseRef);
  if (options.useDefaultExcludes === false) query.set('use_default_excludes', 'false');
  for (const glob of options.exclude ?? []) query.append('exclude', glob);
  const { result, headers } = await downloadToFile({
    client,
    request: { method: 'GET', path: AGENT_SERVER_ROUTES.fileArchive, query, signal },
    sourcePath,
    destinationPath,
    notFound: 'directory not found in the workspace',
  });
  const baseCommit = headers?.['x-archive-base-commit'];
  return typeof baseCommit === 'string' ? { ...result, baseCommit } : result;
}
