import {
  type ResolveAgentServerImageOptions,
  resolveAgentServerImage,
} from '../image/resolve-agent-server-image.js';

/** Options of {@link resolveTestImage}. */
export type ResolveTestImageOptions = Omit<ResolveAgentServerImageOptions, 'baseImage'>;

/**
 * The agent-server image the Docker test suites run: `AGENT_WORKSPACE_DOCKER_IMAGE` when set,
 * else {@link resolveAgentServerImage} on the offline base image (each image built only when
 * its content-hash tag is missing, so a warm call costs a few engine calls).
 */
export async function resolveTestImage(options: ResolveTestImageOptions = {}): Promise<string> {
  return process.env.AGENT_WORKSPACE_DOCKER_IMAGE || (await resolveAgentServerImage(options));
}
