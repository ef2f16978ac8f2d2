/**
 * Our directory-listing extension of the agent-server protocol: `GET
 * {@link DIRECTORY_LISTING_ROUTE}?path=&page_id=&limit=&include_hidden=` answers a page of the
 * entries of one directory (files, directories, links and the rest, each judged by its own type:
 * a symbolic link is reported as `symlink`, never followed) as a `DirectoryListingPageWire`,
 * directories first, then by name. The path goes through the server's confinement like every
 * file route. A server that offers it lists {@link DIRECTORY_LISTING_CAPABILITY} in
 * `/server_info`.
 */
export const DIRECTORY_LISTING_CAPABILITY = 'agent_workspace.directory_listing_v1';

/** Path of the directory-listing route. */
export const DIRECTORY_LISTING_ROUTE = '/api/workspace/list_directory';

/** Default `limit` of a directory-listing page. */
export const DEFAULT_DIRECTORY_LISTING_PAGE_LIMIT = 200;

/** Largest `limit` of a directory-listing page; more is 422 naming `limit`. */
export const MAX_DIRECTORY_LISTING_PAGE_LIMIT = 500;

/** Longest `page_id` (a kind letter, `/` and an entry name); longer is 422 naming `page_id`. */
export const MAX_DIRECTORY_LISTING_PAGE_ID_CHARS = 1024;

/**
 * Most directory entries one listing request reads. Past it the listing stops, the entries read
 * so far are sorted and paged, and the page says `truncated: true`.
 */
export const MAX_DIRECTORY_LISTING_SCANNED_ENTRIES = 50_000;
