import path from 'node:path';
import {
  AGENT_SERVER_ROUTES,
  clientPathSchema,
  SUCCESS,
  successSchema,
} from '@agent-workspace/protocol';
import contentDisposition from 'content-disposition';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { hijackKeepingHeaders } from '../app/hijack-keeping-headers.js';
import { HttpError } from '../app/http-error.js';
import { requireAbsolutePath } from '../app/require-absolute-path.js';
import type { ServerContext } from '../app/server-context.js';
import { openDownload } from '../files/open-download.js';
import { checkUploadDestination, receiveUpload } from '../files/receive-upload.js';

const pathQuerySchema = z.object({
  path: clientPathSchema.describe('Absolute file path'),
});

/** Multipart framing allowed beyond `maxUploadBytes` in a declared `Content-Length`. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** Documents the multipart body, which the multipart plugin (not a schema) parses. */
const multipartFileBody: typeof jsonSchemaTransform = (input) => {
  const { schema, url } = jsonSchemaTransform(input);
  const body = {
    type: 'object',
    required: ['file'],
    properties: { file: { type: 'string', format: 'binary' } },
  };
  return { url, schema: { ...schema, consumes: ['multipart/form-data'], body } };
};

/**
 * Registers OpenHands' `POST /api/file/upload` and `GET /api/file/download`. The `path` must be
 * absolute (400 `Path must be absolute`, as in OpenHands) and is resolved race-free through
 * `context.paths`, so confinement gives 403 and a swapped link cannot redirect the transfer.
 * Both stream (memory stays flat) and count as activity for `idle_time`; uploads are atomic,
 * replace only regular files, and are capped at `maxUploadBytes` (413, at once when the declared
 * length is already too large).
 */
export function registerFileRoutes(scope: FastifyInstance, context: ServerContext): void {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const tags = ['Files'];

  app.post(
    AGENT_SERVER_ROUTES.fileUpload,
    {
      schema: { tags, querystring: pathQuerySchema, response: { 200: successSchema } },
      config: { swaggerTransform: multipartFileBody },
    },
    async (request) => {
      context.touch();
      const input = requireAbsolutePath(request.query.path);
      const { maxUploadBytes } = context.options;
      const declared = Number(request.headers['content-length']);
      if (declared > maxUploadBytes + MULTIPART_OVERHEAD_BYTES) {
        throw new HttpError(413, `File too large: limit is ${maxUploadBytes} bytes`);
      }
      // Fails before reading the body, which is then not read at all (the connection closes).
      checkUploadDestination(context.paths, input);
      await context.track(
        receiveUpload({
          request,
          paths: context.paths,
          input,
          maxUploadBytes,
          signal: context.shutdownSignal,
          onTemporaryFile: (event, file) => context.runtime.temporaryFile(event, file),
        }),
      );
      return SUCCESS;
    },
  );

  app.get(
    AGENT_SERVER_ROUTES.fileDownload,
    { exposeHeadRoute: true, schema: { tags, querystring: pathQuerySchema } },
    async (request, reply) => {
      context.touch();
      const input = requireAbsolutePath(request.query.path);
      const download = openDownload(context.paths, input);
      // Sent by hand (with the headers hooks set), so the file's read buffers can be reused.
      const response = hijackKeepingHeaders(reply);
      try {
        response.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-disposition': contentDisposition(path.basename(input)),
          'content-length': download.size,
        });
        if (request.method !== 'HEAD') await download.sendTo(response);
        response.end();
      } catch (error) {
        // Cut, never short: the client sees fewer bytes than announced.
        request.log.debug({ err: error }, 'download cut');
        response.destroy();
      } finally {
        download.close();
      }
    },
  );
}
