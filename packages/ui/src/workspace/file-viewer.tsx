import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import { useEffect, useState } from 'preact/hooks';
import { useClient } from '../app/client-context.js';
import {
  decodePreview,
  type FilePreview,
  formatBytes,
  MAX_PREVIEW_BYTES,
  readCapped,
} from './file-preview.js';
import { messageOf } from './message-of.js';

/** Props of {@link FileViewer}. */
export interface FileViewerProps {
  /** Absolute path of the file. */
  readonly path: string;
  /** The path as shown (relative to the workspace). */
  readonly label: string;
  /** Changes when the person asks for a refresh: the file is read again. */
  readonly refreshKey: number;
  readonly onClose: () => void;
}

/**
 * The text of one file (region "File viewer"), read with `GET /api/file/download`: the first
 * 1 MiB with a note when the file is longer; a binary file is only named.
 */
export function FileViewer(props: FileViewerProps) {
  const { path, label, refreshKey, onClose } = props;
  const client = useClient();
  const [preview, setPreview] = useState<FilePreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    setPreview(null);
    setError(null);
    client
      .request(AGENT_SERVER_ROUTES.fileDownload, { query: { path }, signal: controller.signal })
      .then((response) => readCapped(response))
      .then(
        (read) => setPreview(decodePreview(read)),
        (failure: unknown) => {
          if (!controller.signal.aborted) setError(messageOf(failure));
        },
      );
    return () => controller.abort();
  }, [client, path, refreshKey]);

  return (
    <section aria-label="File viewer" class="file-viewer">
      <div class="viewer-header">
        <h3 title={path}>{label}</h3>
        {preview?.size != null && <span class="muted">{formatBytes(preview.size)}</span>}
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      {error && <p role="alert">{error}</p>}
      {!error && !preview && <p class="muted">Loading…</p>}
      {preview?.kind === 'binary' && (
        <p class="workspace-note">Binary file: its contents are not shown.</p>
      )}
      {preview?.kind === 'text' && (
        <>
          {preview.truncated && (
            <p class="workspace-note">
              Showing the first {formatBytes(MAX_PREVIEW_BYTES)}
              {preview.size !== null ? ` of ${formatBytes(preview.size)}` : ''}.
            </p>
          )}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: scrollable text, reachable by keyboard */}
          <pre class="file-text" tabIndex={0}>
            {preview.text}
          </pre>
        </>
      )}
    </section>
  );
}
