// The file and git wire: transfers, listings, the file browser, watches, git changes and commits, archives.
export {
  type DirectoryArchiveSummaryWire,
  directoryArchiveSummaryWireSchema,
} from './directory-archive-summary.js';
export {
  type DirectoryEntryType,
  type DirectoryEntryWire,
  type DirectoryListingPageWire,
  directoryEntryWireSchema,
  directoryListingPageWireSchema,
} from './directory-listing.js';
export {
  type FileBrowserEntryWire,
  fileBrowserEntryWireSchema,
  type HomeResponseWire,
  homeResponseWireSchema,
  type SubdirectoryEntryWire,
  type SubdirectoryPageWire,
  subdirectoryEntryWireSchema,
  subdirectoryPageWireSchema,
} from './file-browser.js';
export {
  type FileOperationResult,
  type FileOperationResultWire,
  fileOperationResultWireSchema,
} from './file-operation-result.js';
export {
  type FileWatchQueryWire,
  type FileWatchServerFrameWire,
  fileWatchQueryWireSchema,
  fileWatchServerFrameWireSchema,
} from './file-watch-frame.js';
export {
  type GitChange,
  type GitChangeStatus,
  type GitDiff,
  gitChangeStatusSchema,
  gitChangeWireSchema,
  gitDiffWireSchema,
} from './git-change.js';
export {
  fromGitCommitsPageWire,
  type GitCommit,
  type GitCommitsPage,
  type GitCommitsPageWire,
  type GitCommitWire,
  gitCommitShaParamsWireSchema,
  gitCommitsPageWireSchema,
  gitCommitsQueryWireSchema,
  gitCommitWireSchema,
  toGitCommitsPageWire,
} from './git-commit.js';
export {
  type WorkspaceArchiveManifestWire,
  workspaceArchiveManifestWireSchema,
} from './workspace-archive-manifest.js';
