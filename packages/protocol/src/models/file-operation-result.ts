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

/** Parses wire JSON into a {@link FileOperationResult}. */
export function fileOperationResultFromWire(json: unknown): FileOperationResult {
  const wire = fileOperationResultWireSchema.parse(json);
  return {
    success: wire.success,
    sourcePath: wire.source_path,
    destinationPath: wire.destination_path,
    ...(wire.file_size != null ? { fileSize: wire.file_size } : {}),
    ...(wire.error != null ? { error: wire.error } : {}),
  };
}

/** Serialises a {@link FileOperationResult} to its wire JSON. */
export function fileOperationResultToWire(result: FileOperationResult): FileOperationResultWire {
  return {
    success: result.success,
    source_path: result.sourcePath,
    destination_path: result.destinationPath,
    file_size: result.fileSize ?? null,
    error: result.error ?? null,
  };
}
