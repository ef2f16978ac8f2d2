import type { FastifyRequest } from 'fastify';
import { HttpError } from '../app/http-error.js';
import { type UploadDestination, uploadDestinationError } from './inspect-upload-destination.js';
import { writeStreamAtomic } from './write-stream-atomic.js';

/** Options of {@link receiveUpload}. */
export interface ReceiveUploadOptions {
  /** A `multipart/form-data` request whose part named `file` holds the bytes. */
  request: FastifyRequest;
  /** Where the file goes, from `inspectUploadDestination`. */
  destination: UploadDestination;
  /** Largest accepted file; the multipart plugin truncates there and flags the part. */
  maxUploadBytes: number;
}

const missingFile = () =>
  new HttpError(422, [
    { type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null },
  ]);

/**
 * Streams the multipart part named `file` to the destination through a temporary file that is
 * renamed into place (see `writeStreamAtomic`): memory stays flat, readers never see a partial
 * file, and a failed or oversized upload leaves nothing behind. Other parts are drained.
 *
 * Errors: 422 naming `body.file` when there is no such part (or the body is not multipart),
 * 413 `File too large: limit is N bytes`, 400 for a malformed body, plus those of
 * `uploadDestinationError` when writing fails.
 */
export async function receiveUpload(options: ReceiveUploadOptions): Promise<void> {
  const { request, destination, maxUploadBytes } = options;
  if (!request.isMultipart()) throw missingFile();

  let received = false;
  let failure: unknown;
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue;
      if (received || part.fieldname !== 'file') {
        part.file.resume();
        continue;
      }
      received = true;
      try {
        await writeStreamAtomic({
          source: part.file,
          destination: destination.target,
          mode: destination.mode,
          verify: () => {
            if (part.file.truncated) {
              throw new HttpError(413, `File too large: limit is ${maxUploadBytes} bytes`);
            }
          },
        });
      } catch (error) {
        failure =
          error instanceof HttpError
            ? error
            : await uploadDestinationError(error, destination.target);
        break;
      }
    }
  } catch (error) {
    // Raised by the multipart parser itself: its limits (413) or a malformed body.
    const statusCode = (error as { statusCode?: number }).statusCode;
    if (statusCode === 413) throw new HttpError(413, (error as Error).message);
    throw new HttpError(400, `Invalid multipart body: ${(error as Error).message}`);
  }
  if (failure !== undefined) throw failure;
  if (!received) throw missingFile();
}
