/**
 * A refused or failed call the model should read (a bad path, a non-unique `old_str`, ...).
 * The file editor and its `WorkspaceFiles` throw it; the editor turns it into an
 * observation with `isError: true`. Anything else thrown (a closed workspace, an abort) is a
 * failure of the run, not of the call, and propagates.
 */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
}
