/**
 * The agent-server image the Docker test suites run. TODO(image owner): build or reuse the
 * offline base and agent-server images (content-hash tags) instead of this interim default.
 */
export async function resolveTestImage(): Promise<string> {
  return process.env.AGENT_WORKSPACE_DOCKER_IMAGE ?? 'agent-workspace/agent-server:dev';
}
