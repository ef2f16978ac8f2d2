import { z } from 'zod';
import { conversationEventBaseShape } from './conversation-event-base.js';

/** Wire shape of OpenHands' `PauseEvent`: the user paused the run. */
export const pauseEventWireSchema = z.looseObject({
  kind: z.literal('PauseEvent'),
  ...conversationEventBaseShape('user'),
});

/** Wire JSON of a pause event. */
export type PauseEventWire = z.infer<typeof pauseEventWireSchema>;
