import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * Takes the response over from Fastify (`reply.hijack()`) for a route that writes it by hand,
 * keeping the headers the app's hooks already set on the reply (CORS); returns the
 * raw response to write.
 */
export function hijackKeepingHeaders(reply: FastifyReply): ServerResponse {
  reply.hijack();
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  return reply.raw;
}
