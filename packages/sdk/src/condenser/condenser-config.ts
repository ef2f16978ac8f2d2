import { z } from 'zod';

/** Largest `max_size` of a condenser (events in the view). */
export const MAX_CONDENSER_MAX_SIZE = 10_000;
/** OpenHands' default `max_size` of an `LLMSummarizingCondenser`. */
export const DEFAULT_CONDENSER_MAX_SIZE = 240;
/** OpenHands' default `keep_first`. */
export const DEFAULT_CONDENSER_KEEP_FIRST = 2;

/** The condenser kinds an agent's JSON may name. */
export const CONDENSER_KINDS = [
  'NoOpCondenser',
  'RollingWindowCondenser',
  'LLMSummarizingCondenser',
] as const;

const windowShape = {
  max_size: z.number().int().min(1).max(MAX_CONDENSER_MAX_SIZE).default(DEFAULT_CONDENSER_MAX_SIZE),
  keep_first: z
    .number()
    .int()
    .min(0)
    .max(MAX_CONDENSER_MAX_SIZE)
    .default(DEFAULT_CONDENSER_KEEP_FIRST),
};

/** `keep_first` must leave room for a tail: `max_size / 2 - keep_first - 1 > 0` (OpenHands). */
function leavesRoom(config: { max_size: number; keep_first: number }): boolean {
  return Math.floor(config.max_size / 2) - config.keep_first - 1 > 0;
}
const ROOM_MESSAGE =
  'keep_first must be less than max_size / 2 - 1, to leave room for condensation';

/**
 * The JSON of an agent's `condenser`, by `kind`: `NoOpCondenser` (never condenses),
 * `RollingWindowCondenser` (ours: past `max_size` events, forgets the middle and keeps the first
 * `keep_first` and the newest `max_size / 2 - keep_first - 1`), `LLMSummarizingCondenser`
 * (OpenHands': the same window, with the forgotten events summarised by `llm`, the agent's own
 * model when absent). An unknown kind is refused at `kind`.
 */
export const condenserConfigSchema = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.literal('NoOpCondenser') }),
  z
    .looseObject({ kind: z.literal('RollingWindowCondenser'), ...windowShape })
    .refine(leavesRoom, { message: ROOM_MESSAGE, path: ['keep_first'] }),
  z
    .looseObject({
      kind: z.literal('LLMSummarizingCondenser'),
      ...windowShape,
      llm: z.looseObject({ kind: z.string().optional() }).nullable().optional(),
    })
    .refine(leavesRoom, { message: ROOM_MESSAGE, path: ['keep_first'] }),
]);

/** The JSON of a condenser. */
export type CondenserConfig = z.infer<typeof condenserConfigSchema>;
