export {
  applyCondensation,
  type CondensedView,
  condensedView,
  isViewEvent,
  type ViewEvent,
} from './condensation-view.js';
export {
  type CondenseRequest,
  type Condenser,
  LLMSummarizingCondenser,
  type LLMSummarizingCondenserOptions,
  NoOpCondenser,
  RollingWindowCondenser,
  type WindowCondenserOptions,
} from './condenser.js';
export {
  CONDENSER_KINDS,
  type CondenserConfig,
  condenserConfigSchema,
  DEFAULT_CONDENSER_KEEP_FIRST,
  DEFAULT_CONDENSER_MAX_SIZE,
  MAX_CONDENSER_MAX_SIZE,
} from './condenser-config.js';
export {
  type CondenserFromConfigOptions,
  condensationFor,
  condenserFromConfig,
} from './condenser-from-config.js';
export { MAX_SUMMARIZED_EVENT_CHARS, summarizingPrompt } from './summarizing-prompt.js';
