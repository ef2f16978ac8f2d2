import { z } from 'zod';

/** Wire shape of OpenHands' `ImageContent`: images of a message, as URLs or `data:` URLs. */
export const imageContentWireSchema = z.looseObject({
  type: z.literal('image'),
  image_urls: z.array(z.string()),
});

/** Wire JSON of an image part. */
export type ImageContentWire = z.infer<typeof imageContentWireSchema>;
