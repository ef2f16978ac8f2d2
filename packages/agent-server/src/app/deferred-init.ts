import {
  deferredInitDetail,
  type InitRequestWire,
  type InitState,
  type InitStatusWire,
  internalServerErrorBody,
} from '@agent-workspace/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './http-error.js';
import type { ServerContext } from './server-context.js';
import { createSessionAuth } from './session-auth.js';

/**
 * The dormant state of a server started with `deferInit` (OpenHands' `deferred_init`): the
 * `/api` routes, `/execute_action` and the websockets answer 503 until one `POST /api/init`
 * delivers the per-user configuration. Only the first init applies; later ones are refused.
 */
export class DeferredInit {
  #state: InitState = 'dormant';

  /** The current state. */
  get state(): InitState {
    return this.#state;
  }

  /** The state as `GET /api/init` tells it. */
  status(): InitStatusWire {
    // Init cannot fail part-way (it only swaps the key check), so there is never an error.
    return { state: this.#state, error: null };
  }

  /**
   * Applies `request` to `context` and marks the server ready.
   *
   * @throws HttpError 400 `server already in state: <state>` when init ran before (OpenHands).
   */
  initialize(context: ServerContext, request: InitRequestWire): InitStatusWire {
    if (this.#state !== 'dormant') {
      throw new HttpError(400, `server already in state: ${this.#state}`);
    }
    // One synchronous step: a racing second init sees `ready` and is refused.
    this.#state = 'initializing';
    if (request.session_api_keys) {
      context.auth = createSessionAuth(request.session_api_keys);
    }
    this.#state = 'ready';
    return this.status();
  }
}

/**
 * An `onRequest` hook answering 503 while the server is not initialized, with OpenHands' body:
 * `{"detail":"Internal Server Error","exception":"503: server is in deferred-init state …"}`.
 * Passes everything when the server was not started with deferred init.
 */
export function requireInitialized(context: ServerContext) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const init = context.init;
    if (init === undefined || init.state === 'ready' || request.method === 'OPTIONS') return;
    await reply.status(503).send(internalServerErrorBody(`503: ${deferredInitDetail(init.state)}`));
  };
}
