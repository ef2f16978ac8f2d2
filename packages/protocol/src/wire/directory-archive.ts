/**
 * Our directory-archive extension of the agent-server protocol: a whole directory crosses the
 * wire as one tar stream (`application/x-tar`, ustar with pax headers for long names) at
 * `AGENT_SERVER_ROUTES.directoryArchive`:
 *
 * - `GET ?path=<absolute directory>` streams the directory's tree: directories, regular files
 *   (mode kept, set-id bits dropped) and symbolic links stored as links, never followed. Other
 *   entries (FIFOs, sockets, devices) are left out, and so are files with several names on a
 *   server confined to its working directory.
 * - `POST ?path=<absolute directory>` with an `application/x-tar` body extracts it into that
 *   directory (created when missing) and answers a `DirectoryArchiveSummaryWire`. Each file is
 *   written atomically; nothing is ever written through a symbolic link; entries with absolute
 *   names, `..`, hard links, devices or FIFOs and archives over the limits below are refused
 *   with a 4xx naming the entry.
 *
 * A server that offers it lists this capability in `/server_info`. Version 1 served the same
 * archive at `/api/file/archive`, which OpenHands now uses for its own workspace archive; a
 * client that knows only version 1 therefore falls back to file-by-file transfer.
 */
export const DIRECTORY_ARCHIVE_CAPABILITY = 'agent_workspace.directory_archive_v2';

/** Media type of the archive both ways. */
export const DIRECTORY_ARCHIVE_MEDIA_TYPE = 'application/x-tar';

/**
 * Default most entries (files, directories, links) one extracted archive may hold; the server's
 * `--max-archive-entries` changes it. More is 413 naming the first entry over.
 */
export const DEFAULT_MAX_ARCHIVE_ENTRIES = 1_000_000;

/** Longest entry name or link target in an archive, in UTF-8 bytes (Linux `PATH_MAX`). */
export const MAX_ARCHIVE_PATH_BYTES = 4096;

/** Longest single component of an entry name, in UTF-8 bytes (Linux `NAME_MAX`). */
export const MAX_ARCHIVE_NAME_BYTES = 255;

/**
 * Deepest directory nesting packed or extracted (each level holds a descriptor while the tree is
 * walked). Deeper entries are refused (extraction: 400) or end the stream in error (packing).
 */
export const MAX_ARCHIVE_DEPTH = 256;
