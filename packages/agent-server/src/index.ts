export {
  type AgentServerOptions,
  agentServerOptionsSchema,
  type ResolvedAgentServerOptions,
  resolveAgentServerOptions,
} from './agent-server-options.js';
export { type AgentServer, createAgentServer } from './create-agent-server.js';
export { VERSION } from './version.js';
