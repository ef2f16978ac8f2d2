export {
  type CommandResult,
  type CommandResultWire,
  commandResultFromWire,
  commandResultToWire,
  commandResultWireSchema,
} from './models/command-result.js';
export {
  type FileOperationResult,
  type FileOperationResultWire,
  fileOperationResultFromWire,
  fileOperationResultToWire,
  fileOperationResultWireSchema,
} from './models/file-operation-result.js';
export {
  type GitChange,
  type GitChangeStatus,
  type GitDiff,
  gitChangeStatusSchema,
  gitChangeWireSchema,
  gitDiffWireSchema,
} from './models/git-change.js';
