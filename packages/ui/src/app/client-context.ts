import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { AgentServerClient } from '../api/agent-server-client.js';

/** The connected client; views below the connect form read it with {@link useClient}. */
export const ClientContext = createContext<AgentServerClient | null>(null);

/** The connected {@link AgentServerClient}; only valid under a connected `ClientContext`. */
export function useClient(): AgentServerClient {
  const client = useContext(ClientContext);
  if (!client) throw new Error('useClient() outside a connected page');
  return client;
}
