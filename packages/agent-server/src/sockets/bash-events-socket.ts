import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../app/server-context.js';

/** TODO(helper): implement. */
export function registerBashEventsSocket(_app: FastifyInstance, _context: ServerContext): void {}
