import { type CommandResult, RemoteWorkspace } from '@agent-workspace/core';

/** The part of a `/start` or `/sessions/{id}` answer that reaches a session's agent-server. */
export interface SessionAnswer {
  json: { url: string; session_api_key: string };
}

/** Runs `command` in `/workspace` of the started session `answer`, through its agent-server. */
export async function runInSession(answer: SessionAnswer, command: string): Promise<CommandResult> {
  const workspace = new RemoteWorkspace({
    host: answer.json.url,
    workingDir: '/workspace',
    apiKey: answer.json.session_api_key,
  });
  try {
    return await workspace.executeCommand(command);
  } finally {
    await workspace.close();
  }
}
