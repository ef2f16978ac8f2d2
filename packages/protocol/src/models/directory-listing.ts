import { z } from 'zod';

/** What a listed entry is, by its own type (links are never followed). */
const directoryEntryTypeSchema = z.enum(['file', 'directory', 'symlink', 'other']);

/** One of `file`, `directory`, `symlink`, `other`. */
export type DirectoryEntryType = z.infer<typeof directoryEntryTypeSchema>;

/** One entry of a directory-listing page: its name, type and, for a regular file, its size. */
export const directoryEntryWireSchema = z.object({
  name: z.string(),
  type: directoryEntryTypeSchema,
  size: z.number().int().nonnegative().nullable().describe('Bytes of a regular file, else null'),
});

/** Wire JSON of a {@link directoryEntryWireSchema}. */
export type DirectoryEntryWire = z.infer<typeof directoryEntryWireSchema>;

/**
 * A page of `GET /api/workspace/list_directory` (our extension): `path` is the directory as
 * asked (normalised), `items` directories first then by name, `next_page_id` the id of the next
 * page (`null` on the last), `truncated` true when the listing stopped at
 * `MAX_DIRECTORY_LISTING_SCANNED_ENTRIES`.
 */
export const directoryListingPageWireSchema = z.object({
  path: z.string(),
  items: z.array(directoryEntryWireSchema),
  next_page_id: z.string().nullable(),
  truncated: z.boolean(),
});

/** Wire JSON of a {@link directoryListingPageWireSchema}. */
export type DirectoryListingPageWire = z.infer<typeof directoryListingPageWireSchema>;
