import { EXEC_STREAM_PATH } from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireWebsocketHandshake } from '../app/protocol-errors.js';
import type { ServerContext } from '../app/server-context.js';
import { authenticateSocket, rejectInvalidDeprecatedKey } from './authenticate-socket.js';
import { ExecSession } from './exec-session.js';

const querySchema = z.object({
  /** Deprecated: authenticate with a query parameter. */
  session_api_key: z.string().optional(),
});

/**
 * Our streaming-exec extension at `EXEC_STREAM_PATH` (frames in `@agent-workspace/protocol`
 * `exec-stream-frame`): start commands, stream their output as produced, feed stdin, send
 * signals, and `attach` from the last `order` received to resume after a dropped connection.
 * Authentication is the same handshake as the bash-events socket's.
 */
export function registerExecSocket(app: FastifyInstance, context: ServerContext): void {
  app.get(
    EXEC_STREAM_PATH,
    {
      websocket: true,
      onRequest: requireWebsocketHandshake,
      schema: { querystring: querySchema },
      preValidation: rejectInvalidDeprecatedKey(context),
    },
    (socket, request) => {
      const session = new ExecSession(socket, context, request.log);
      socket.once('close', () => session.close());
      authenticateSocket(socket, request, context, {
        onAuthenticated: () => session.open(),
        onFrame: (frame) => session.handle(frame),
      });
    },
  );
}
