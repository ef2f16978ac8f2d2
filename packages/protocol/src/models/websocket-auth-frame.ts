import { z } from 'zod';

/** Wire shape of the first websocket frame a client sends to authenticate. */
export const websocketAuthFrameWireSchema = z.object({
  type: z.literal('auth'),
  session_api_key: z.string(),
});

/**
 * Wire JSON of the first-frame websocket authentication, preferred over the deprecated query
 * parameter; `session_api_key` is the key sent as `X-Session-API-Key` on HTTP.
 */
export type WebsocketAuthFrameWire = z.infer<typeof websocketAuthFrameWireSchema>;
