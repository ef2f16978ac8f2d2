import { z } from 'zod';

/**
 * Wire shape of the manifest at the end of a `tar.gz` workspace archive
 * (`WORKSPACE_ARCHIVE_MANIFEST_NAME`), as OpenHands writes it: no timestamps, so two archives of
 * the same tree carry the same manifest.
 */
export const workspaceArchiveManifestWireSchema = z.object({
  format: z.literal('tar.gz').describe('Archive format'),
  source: z.string().describe('Name of the archived directory (the top directory of every entry)'),
  file_count: z.number().int().nonnegative().describe('Regular files archived'),
  total_bytes: z.number().int().nonnegative().describe('Bytes of file content archived'),
  excludes: z.array(z.string()).describe('Exclude globs applied: the defaults, then the request'),
});

/** Wire JSON of a workspace-archive manifest (snake_case fields, as on the wire). */
export type WorkspaceArchiveManifestWire = z.infer<typeof workspaceArchiveManifestWireSchema>;
