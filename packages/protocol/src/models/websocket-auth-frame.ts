import { z } from 'zod';

/** Wire shape of the first websocket frame a client sends to authenticate. */
export const websocketAuthFrameWireSchema = z.object({
  type: z.literal('auth'),
  session_api_key: z.string(),
});

/** Wire JSON of a {@link WebsocketAuthFrame}. */
export type WebsocketAuthFrameWire = z.infer<typeof websocketAuthFrameWireSchema>;

/** First-frame websocket authentication, preferred over the deprecated query parameter. */
export interface WebsocketAuthFrame {
  type: 'auth';
  /** The session API key (`X-Session-API-Key` on HTTP). */
  sessionApiKey: string;
}

/** Parses a websocket frame as an auth frame. Throws a `ZodError` naming the bad field. */
export function websocketAuthFrameFromWire(json: unknown): WebsocketAuthFrame {
  const wire = websocketAuthFrameWireSchema.parse(json);
  return { type: wire.type, sessionApiKey: wire.session_api_key };
}

/** Serialises a {@link WebsocketAuthFrame} to its wire JSON. */
export function websocketAuthFrameToWire(frame: WebsocketAuthFrame): WebsocketAuthFrameWire {
  return { type: frame.type, session_api_key: frame.sessionApiKey };
}
