import { z } from 'zod';

/**
 * Wire shape of the answer to `POST /api/workspace/directory_archive` (our directory-archive extension, see
 * `DIRECTORY_ARCHIVE_CAPABILITY`): what the extraction wrote.
 */
export const directoryArchiveSummaryWireSchema = z.object({
  files: z.number().int().nonnegative().describe('Regular files written'),
  directories: z.number().int().nonnegative().describe('Directory entries created or updated'),
  symlinks: z.number().int().nonnegative().describe('Symbolic links created'),
  bytes: z.number().int().nonnegative().describe('Bytes of file content written'),
});

/** Wire JSON of a directory-archive summary; its fields are single words, read as they are. */
export type DirectoryArchiveSummaryWire = z.infer<typeof directoryArchiveSummaryWireSchema>;
