/** What the file viewer shows of a file. */
export type FilePreview =
  | {
      readonly kind: 'text';
      readonly text: string;
      /** Only the first {@link MAX_PREVIEW_BYTES} bytes were read. */
      readonly truncated: boolean;
      /** The file's size in bytes when the server said it. */
      readonly size: number | null;
    }
  | { readonly kind: 'binary'; readonly size: number | null };

/** Most bytes of a file the viewer reads (1 MiB). */
export const MAX_PREVIEW_BYTES = 1024 * 1024;

/** Bytes looked at for a NUL, the mark of a binary file (as git does). */
const BINARY_SNIFF_BYTES = 8000;

/** Options of {@link decodePreview}. */
export interface DecodePreviewOptions {
  /** The first bytes of the file (at most the cap). */
  readonly bytes: Uint8Array;
  /** The file was longer than `bytes`. */
  readonly truncated: boolean;
  /** The file's size in bytes when known. */
  readonly size: number | null;
}

/**
 * The preview of a file's first bytes: text when they are UTF-8 without a NUL in the first
 * 8000 bytes (a multi-byte character cut by the cap is dropped), binary otherwise.
 */
export function decodePreview(options: DecodePreviewOptions): FilePreview {
  const { bytes, truncated, size } = options;
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { kind: 'binary', size };
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: truncated });
    return { kind: 'text', text, truncated, size };
  } catch {
    return { kind: 'binary', size };
  }
}

/**
 * Reads at most `maxBytes` of a response body, then cancels the rest, so a huge file costs no
 * more than the cap.
 */
export async function readCapped(
  response: Response,
  maxBytes: number = MAX_PREVIEW_BYTES,
): Promise<DecodePreviewOptions> {
  const header = response.headers.get('content-length');
  const size = header !== null && /^\d+$/.test(header) ? Number(header) : null;
  const chunks: Uint8Array[] = [];
  let length = 0;
  let truncated = false;
  const reader = response.body?.getReader();
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.length;
      if (length > maxBytes) {
        truncated = true;
        await reader.cancel();
        break;
      }
    }
  }
  const bytes = new Uint8Array(Math.min(length, maxBytes));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.length;
    if (offset >= bytes.length) break;
  }
  return { bytes, truncated, size };
}

/** A byte count for people: `512 B`, `1.5 KiB`, `3.2 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
