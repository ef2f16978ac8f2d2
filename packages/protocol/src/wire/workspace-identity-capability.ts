/**
 * Our workspace-identity extension of the agent-server protocol: `GET /api/workspace/identity`
 * (`AGENT_SERVER_ROUTES.workspaceIdentity`) answers the identity of the server's working
 * directory as a `WorkspaceIdentityWire`. A server that offers it lists this capability in
 * `/server_info`; clients fall back to an identity derived from the server's address otherwise.
 */
export const WORKSPACE_IDENTITY_CAPABILITY = 'agent_workspace.workspace_identity_v1';
