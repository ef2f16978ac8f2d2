import { z } from 'zod';

/**
 * Wire shape of OpenHands' `TextContent`: one text part of a message, a thought or an
 * observation. Loose: OpenHands adds fields such as `cache_prompt`, kept verbatim.
 */
export const textContentWireSchema = z.looseObject({
  type: z.literal('text').default('text'),
  text: z.string(),
});

/** Wire JSON of a text part. */
export type TextContentWire = z.infer<typeof textContentWireSchema>;
