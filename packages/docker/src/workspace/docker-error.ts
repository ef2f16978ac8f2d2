import { WorkspaceError, type WorkspaceErrorCode } from '@agent-workspace/core';
import type Docker from 'dockerode';
import { describeDockerEngine } from './resolve-docker.js';

/** Socket error codes that mean the engine cannot be reached, and what they suggest. */
const UNREACHABLE: Record<string, string> = {
  ENOENT: 'no socket there',
  ECONNREFUSED: 'connection refused',
  EACCES: 'permission denied on the socket; is this user in the docker group?',
  EPERM: 'permission denied on the socket; is this user in the docker group?',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
};

/** Options of {@link dockerError}. */
export interface DockerErrorOptions {
  docker: Docker;
  /** What was being done, e.g. `create the container`. */
  action: string;
  /** The image, named when the engine does not have it. */
  image?: string | undefined;
  /** Code for other engine failures. Default `PROVISIONING_ERROR`. */
  code?: WorkspaceErrorCode | undefined;
}

/** The status code of a dockerode error, if it has one. */
export function dockerStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The engine's own message of a dockerode error, else the error's message. */
export function engineMessage(error: unknown): string {
  const json = (error as { json?: { message?: unknown } } | null)?.json;
  if (typeof json?.message === 'string') return json.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Turns a dockerode failure into a `WorkspaceError` that says what to do: an unreachable engine
 * is `CONNECTION_ERROR` naming the engine and `DOCKER_HOST`; a missing image is
 * `PROVISIONING_ERROR` saying how to build it; anything else names the action and the engine's
 * message. `WorkspaceError`s pass through.
 */
export function dockerError(error: unknown, options: DockerErrorOptions): WorkspaceError {
  if (WorkspaceError.isInstance(error)) return error;
  const engine = describeDockerEngine(options.docker);
  const errno = (error as { code?: unknown } | null)?.code;
  const status = dockerStatus(error);
  if (status === undefined && typeof errno === 'string' && errno in UNREACHABLE) {
    return new WorkspaceError({
      code: 'CONNECTION_ERROR',
      message: `cannot reach the Docker engine at ${engine} to ${options.action} (${UNREACHABLE[errno]}): is the Docker engine running? DOCKER_HOST=${process.env.DOCKER_HOST ?? '(unset)'}`,
      cause: error,
      details: { engine, errorCode: errno },
    });
  }
  const message = engineMessage(error);
  if (status === 404 && options.image && /no such image/i.test(message)) {
    return new WorkspaceError({
      code: 'PROVISIONING_ERROR',
      message: `the Docker engine at ${engine} has no image ${options.image}: build the agent-server image with \`agent-workspace-docker build-base-image\` then \`agent-workspace-docker build-image --base-image <printed name>\`, or pull one (docker pull ${options.image})`,
      cause: error,
      details: { engine, image: options.image, statusCode: status },
    });
  }
  return new WorkspaceError({
    code: options.code ?? 'PROVISIONING_ERROR',
    message: `Docker could not ${options.action}: ${message}`,
    cause: error,
    details: { engine, ...(status !== undefined && { statusCode: status }) },
  });
}
