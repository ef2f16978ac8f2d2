import { z } from 'zod';

/** Wire shape of a file transfer outcome (OpenHands `FileOperationResult`). */
export const fileOperationResultWireSchema = z.object({
  success: z.boolean(),
  source_path: z.string(),
  destination_path: z.string(),
  file_size: z.number().int().nonnegative().nullable().optional(),
  error: z.string().nullable().optional(),
});

/** Wire JSON of a {@link FileOperationResult}. */
export type FileOperationResultWire = z.infer<typeof fileOperationResultWireSchema>;

/** The outcome of `fileUpload` / `fileDownload`. Failures are `success: false` with an `error`. */
export interface FileOperationResult {
  success: boolean;
  sourcePath: string;
  destinationPath: string;
  /** Bytes written, when known. */
  fileSize?: number | undefined;
  /** Why the operation failed; absent on success. */
  error?: string | undefined;
}
