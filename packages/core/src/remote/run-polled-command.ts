import { randomBytes } from 'node:crypto';
import type { BashOutput, CommandResult } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import { abortedError } from '../errors/aborted-error.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { anySignal } from '../internal/any-signal.js';
import type { CommandRequest } from '../workspace/base-workspace.js';
import type { AgentServerClient, AgentServerRequest } from './agent-server-client.js';
import { CLIENT_TIMEOUT_GRACE_MS } from './client-timeout-grace.js';
import { CommandOutput } from './command-output.js';
import { errorDetail } from './error-detail.js';
import { killTokenScript } from './kill-token-script.js';
import { loadWireSchemas } from './load-wire-schemas.js';
import { pollBashCommand } from './poll-bash-command.js';
import { wrapPolledCommand } from './wrap-polled-command.js';

/** How long the best-effort kill of a polled command may take, in milliseconds. */
const KILL_TIMEOUT_MS = 10_000;

/** Per-workspace state of the polled mode, shared by its commands. */
export interface PolledCommandState {
  /** Set once the server refused a fractional timeout (OpenHands' `int` field). */
  integerTimeouts: boolean;
}

/** Options of {@link runPolledCommand}. */
export interface RunPolledCommandOptions {
  client: AgentServerClient;
  request: CommandRequest;
  /** Aborted when the workspace closes, with a `WORKSPACE_CLOSED` reason. */
  closing: AbortSignal;
  /** Directory the kill script runs in. */
  workingDir: string;
  /** Cap on captured bytes per stream; the tail is kept. */
  maxOutputBytes: number;
  /** How long polling may wait for a dropped connection to come back. */
  reconnectTimeoutMs: number;
  state: PolledCommandState;
  /** Registers a kill until it settles, so `close()` can wait for it. */
  track: <T>(work: Promise<T>) => Promise<T>;
}

/** What starting and killing need: everything but the request. */
type PolledContext = Omit<RunPolledCommandOptions, 'request'>;

/** Plain OpenHands mode: `start_bash_command`, then poll its events. */
export async function runPolledCommand(options: RunPolledCommandOptions): Promise<CommandResult> {
  const { request, client, closing } = options;
  const { command } = request;
  const token = randomBytes(16).toString('hex');
  const signal = anySignal([request.signal, closing]);
  const output = new CommandOutput({
    maxBytes: options.maxOutputBytes,
    onStdout: request.onStdout,
    onStderr: request.onStderr,
  });
  const startedAt = performance.now();
  let commandId: string;
  try {
    commandId = await startBashCommand(
      options,
      {
        command: wrapPolledCommand({ command, env: request.env, token }),
        cwd: request.cwd,
        timeoutSeconds: request.timeoutMs / 1000,
      },
      signal,
    );
  } catch (error) {
    // Aborted mid-request: the server may have started it.
    if (signal.aborted) await killPolled(options, token);
    throw abortReason(request.signal, closing, error);
  }
  try {
    const outcome = await pollBashCommand({
      client,
      commandId,
      deadline: startedAt + request.timeoutMs + CLIENT_TIMEOUT_GRACE_MS,
      reconnectTimeoutMs: options.reconnectTimeoutMs,
      signal,
      onOutput: (event) => {
        if (event.stdout !== null) output.write('stdout', event.stdout);
        if (event.stderr !== null) output.write('stderr', event.stderr);
      },
    });
    const durationMs = performance.now() - startedAt;
    if (outcome.kind === 'deadline') {
      await killPolled(options, token);
      return output.result({
        command,
        exitCode: -1,
        timeoutOccurred: true,
        terminationReason: 'timeout',
        durationMs,
      });
    }
    const { exitCode } = outcome.event;
    if (exitCode === -1) throwIfSpawnFailure(outcome.event, request.cwd);
    // OpenHands' bash events say no more than the exit code: -1 is its timeout.
    return output.result({
      command,
      exitCode: exitCode ?? -1,
      timeoutOccurred: exitCode === -1,
      ...(exitCode === -1 && { terminationReason: 'timeout' as const }),
      durationMs,
    });
  } catch (error) {
    if (!WorkspaceError.isInstance(error, 'INVALID_CWD')) await killPolled(options, token);
    throw abortReason(request.signal, closing, error);
  }
}

/** `POST /api/bash/start_bash_command`; returns the command id. */
async function startBashCommand(
  context: PolledContext,
  body: { command: string; cwd: string; timeoutSeconds: number },
  signal: AbortSignal,
): Promise<string> {
  const { client, state } = context;
  const timeout = state.integerTimeouts ? Math.ceil(body.timeoutSeconds) : body.timeoutSeconds;
  const request: AgentServerRequest = {
    method: 'POST',
    path: AGENT_SERVER_ROUTES.startBashCommand,
    json: { command: body.command, cwd: body.cwd, timeout },
    signal,
  };
  const reply = await client.call(request);
  if (reply.status >= 200 && reply.status <= 299) {
    const { bashEventFromWire } = await loadWireSchemas();
    const event = client.parse(reply, request, bashEventFromWire);
    if (event.kind !== 'BashCommand') {
      throw new WorkspaceError({
        code: 'PROTOCOL_ERROR',
        message: `the agent-server at ${client.host} answered start_bash_command with a ${event.kind}, not a BashCommand`,
      });
    }
    return event.id;
  }
  const detail = await errorDetail(reply);
  // OpenHands declares `timeout: int`; fall back to whole seconds once.
  if (reply.status === 422 && !Number.isInteger(timeout) && /timeout/.test(detail)) {
    state.integerTimeouts = true;
    return startBashCommand(context, body, signal);
  }
  if ((reply.status === 400 || reply.status === 403) && /\bcwd\b/i.test(detail)) {
    throw invalidCwd(body.cwd, detail);
  }
  if (reply.status === 422) {
    throw new WorkspaceError({
      code: 'INVALID_ARGUMENT',
      message: `the agent-server at ${client.host} rejected the command: ${detail}`,
      details: { status: reply.status, detail },
    });
  }
  throw client.statusError(reply, request);
}

/** Best-effort kill of a polled command's processes; `close()` waits for it. */
function killPolled(context: PolledContext, token: string): Promise<void> {
  const signal = AbortSignal.timeout(KILL_TIMEOUT_MS);
  const kill = (async (): Promise<void> => {
    try {
      const commandId = await startBashCommand(
        context,
        { command: killTokenScript(token), cwd: context.workingDir, timeoutSeconds: 10 },
        signal,
      );
      await pollBashCommand({
        client: context.client,
        commandId,
        deadline: performance.now() + KILL_TIMEOUT_MS,
        reconnectTimeoutMs: 0,
        signal,
      });
    } catch {
      // Best effort: the server-side timeout still ends the command.
    }
  })();
  return context.track(kill);
}

/** Maps an error raised because a signal fired to `ABORTED` / `WORKSPACE_CLOSED`. */
function abortReason(
  userSignal: AbortSignal | undefined,
  closing: AbortSignal,
  error: unknown,
): unknown {
  if (userSignal?.aborted) return abortedError(userSignal);
  if (closing.aborted) return closing.reason;
  return error;
}

/** The `INVALID_CWD` error for `cwd`, with the server's explanation. */
function invalidCwd(cwd: string, detail: string): WorkspaceError {
  return new WorkspaceError({
    code: 'INVALID_CWD',
    message: `invalid cwd ${cwd}: ${detail}`,
    details: { path: cwd, detail },
  });
}

/**
 * OpenHands reports a failed spawn (e.g. a missing cwd) as a single event `order: 0`,
 * `exit_code: -1`, `stderr: "Error executing command: …"`; that is an error, not a timeout.
 */
function throwIfSpawnFailure(event: BashOutput, cwd: string): void {
  const stderr = event.stderr ?? '';
  if (event.order !== 0 || event.stdout || !stderr.startsWith('Error executing command:')) return;
  if (/No such file or directory|Not a directory/.test(stderr)) throw invalidCwd(cwd, stderr);
  throw new WorkspaceError({
    code: 'SPAWN_ERROR',
    message: `the agent-server could not start the command: ${stderr}`,
    details: { detail: stderr },
  });
}
