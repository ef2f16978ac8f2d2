import { z } from 'zod';

/** One subdirectory in a `search_subdirs` page: its name and absolute path. */
export const subdirectoryEntryWireSchema = z.object({ name: z.string(), path: z.string() });

/** Wire JSON of a {@link subdirectoryEntryWireSchema}. */
export type SubdirectoryEntryWire = z.infer<typeof subdirectoryEntryWireSchema>;

/**
 * A page of `GET /api/file/search_subdirs` (OpenHands' `SubdirectoryPage`): `next_page_id` is the
 * lowercased name of the first entry of the next page, `null` on the last page.
 */
export const subdirectoryPageWireSchema = z.object({
  items: z.array(subdirectoryEntryWireSchema),
  next_page_id: z.string().nullable(),
});

/** Wire JSON of a {@link subdirectoryPageWireSchema}. */
export type SubdirectoryPageWire = z.infer<typeof subdirectoryPageWireSchema>;

/** A sidebar entry of the file browser (OpenHands' `FileBrowserEntry`). */
export const fileBrowserEntryWireSchema = z.object({ label: z.string(), path: z.string() });

/** Wire JSON of a {@link fileBrowserEntryWireSchema}. */
export type FileBrowserEntryWire = z.infer<typeof fileBrowserEntryWireSchema>;

/**
 * `GET /api/file/home` (OpenHands' `HomeResponse`): the home directory, its top-level
 * directories (`favorites`) and the file-system roots (`locations`).
 */
export const homeResponseWireSchema = z.object({
  home: z.string(),
  favorites: z.array(fileBrowserEntryWireSchema),
  locations: z.array(fileBrowserEntryWireSchema),
});

/** Wire JSON of a {@link homeResponseWireSchema}. */
export type HomeResponseWire = z.infer<typeof homeResponseWireSchema>;
