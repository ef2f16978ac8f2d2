// The bash wire: commands, their output and events, and the exec stream's frames.
export {
  type BashCommand,
  type BashCommandWire,
  bashCommandWireSchema,
} from './bash-command.js';
export {
  type BashError,
  type BashErrorWire,
  bashErrorWireSchema,
} from './bash-error.js';
export {
  type BashEvent,
  type BashEventWire,
  bashEventFromWire,
  bashEventWireSchema,
} from './bash-event.js';
export {
  type BashEventPage,
  type BashEventPageWire,
  bashEventPageFromWire,
  bashEventPageWireSchema,
} from './bash-event-page.js';
export {
  type BashEventSearchQuery,
  type BashEventSearchQueryWire,
  type BashEventSortOrder,
  bashEventSearchQueryFromWire,
  bashEventSearchQueryToSearchParams,
  bashEventSearchQueryWireSchema,
  bashEventSortOrderSchema,
} from './bash-event-search-query.js';
export {
  type BashEventsClearedWire,
  bashEventsClearedWireSchema,
} from './bash-events-cleared.js';
export {
  type BashOutput,
  type BashOutputWire,
  bashOutputWireSchema,
} from './bash-output.js';
export {
  type CommandResult,
  type CommandResultWire,
  commandResultWireSchema,
} from './command-result.js';
export {
  type ExecClientFrameWire,
  type ExecServerFrameWire,
  type ExecSignal,
  execClientFrameWireSchema,
  execServerFrameWireSchema,
} from './exec-stream-frame.js';
export {
  DEFAULT_BASH_TIMEOUT_SECONDS,
  type ExecuteBashRequestWire,
  executeBashRequestWireSchema,
} from './execute-bash-request.js';
