import { readdirSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { WorkspaceError } from '@agent-workspace/core';
import { readOpenFilesLimit } from './default-max-connections.js';

/**
 * Idle connections {@link shedIdleConnections} closes by default: enough descriptors for a few
 * spawns (three pipes each) or file opens.
 */
export const DESCRIPTOR_SHED_BATCH = 16;

/** Why connections were shed. */
export type ShedReason = 'max-connections' | 'descriptors';

/** What shedding reaches of one listening server. */
interface ListeningServer {
  /** Its idle connections, oldest idle first, with the order they became idle in. */
  idle: Map<Socket, number>;
  onShed: ((count: number, reason: ShedReason) => void) | undefined;
}

/** Every listening tracked server of this process: descriptors are a per-process resource. */
const listening = new Set<ListeningServer>();

/** Order in which connections became idle, across servers. */
let nextIdleOrder = 0;

/** How often the descriptor watch counts the process's descriptors. */
const DESCRIPTOR_WATCH_MS = 1000;

/** The descriptor watch, running while a tracked server listens and the limit is known. */
let descriptorWatch: NodeJS.Timeout | undefined;

/**
 * Closes up to `count` idle connections (open, with no request in flight: kept alive after
 * their last response, or never used) of every listening server in this process, oldest idle
 * first, and never throws. Call it when an `open`, `accept` or `spawn` failed with
 * `EMFILE`/`ENFILE`: the descriptors come back at once, so the next attempt can succeed.
 * Websockets and connections with a request in flight are never shed. Returns how many were.
 */
export function shedIdleConnections(count: number = DESCRIPTOR_SHED_BATCH): number {
  // The `count` oldest of each server hold the `count` oldest of all.
  const oldest: { socket: Socket; order: number; server: ListeningServer }[] = [];
  for (const server of listening) {
    let taken = 0;
    for (const [socket, order] of server.idle) {
      if (taken++ >= count) break;
      oldest.push({ socket, order, server });
    }
  }
  const victims = oldest.sort((a, b) => a.order - b.order).slice(0, Math.max(0, count));
  const shed = new Map<ListeningServer, number>();
  for (const { socket, server } of victims) {
    server.idle.delete(socket);
    socket.destroy();
    shed.set(server, (shed.get(server) ?? 0) + 1);
  }
  for (const [server, shedCount] of shed) server.onShed?.(shedCount, 'descriptors');
  return victims.length;
}

/**
 * Starts the descriptor watch unless it runs: every second, while some connection is idle, it
 * counts the process's descriptors (`/proc/self/fd`) and sheds idle connections when fewer than
 * `DESCRIPTOR_SHED_BATCH` are free. Node gives no sign of an `accept` that failed with `EMFILE`
 * (libuv closes the connection at once and says nothing), so this is how a server whose
 * descriptors idle connections hold recovers without waiting for their keep-alive timeout.
 */
function watchDescriptors(): void {
  if (descriptorWatch !== undefined) return;
  const limit = readOpenFilesLimit();
  if (limit === undefined) return;
  descriptorWatch = setInterval(() => {
    if (![...listening].some((server) => server.idle.size > 0)) return;
    let used: number;
    try {
      used = readdirSync('/proc/self/fd').length;
    } catch {
      // Not even one descriptor to read the directory with.
      used = limit;
    }
    if (limit - used < DESCRIPTOR_SHED_BATCH) shedIdleConnections();
  }, DESCRIPTOR_WATCH_MS).unref();
}

/** Stops the descriptor watch once no tracked server listens. */
function unwatchDescriptors(): void {
  if (listening.size > 0 || descriptorWatch === undefined) return;
  clearInterval(descriptorWatch);
  descriptorWatch = undefined;
}

/** True when `error` (or its cause, or a `SPAWN_ERROR`'s `details.errno`) is EMFILE or ENFILE. */
export function isDescriptorExhaustion(error: unknown): boolean {
  let current = error as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; current && depth < 4; depth++) {
    const errno = WorkspaceError.isInstance(current) ? current.details.errno : current.code;
    if (errno === 'EMFILE' || errno === 'ENFILE') return true;
    current = current.cause as typeof current;
  }
  return false;
}

/** Options of {@link trackConnections}. */
export interface TrackConnectionsOptions {
  /** The HTTP server, before it listens. */
  server: Server;
  /** Most open connections: one more sheds the oldest idle one, or is closed when none is. */
  maxConnections: number;
  /** Told how many connections were shed, and why. */
  onShed?: ((count: number, reason: ShedReason) => void) | undefined;
  /** Told of a failed `accept` (the server carries on). */
  onAcceptError?: ((error: NodeJS.ErrnoException) => void) | undefined;
}

/**
 * Keeps count of `server`'s connections and which of them are idle, and bounds them: past
 * `maxConnections` a new connection sheds the oldest idle one (a busy server keeps serving new
 * clients while kept-alive ones wait), and is closed at once only when every other connection
 * is busy. While the server listens, {@link shedIdleConnections} reaches its idle ones, and
 * the descriptor watch sheds them when the process runs out of descriptors (see
 * `watchDescriptors`). A failed `accept` never crashes the process: an `EMFILE`/`ENFILE` one
 * sheds idle connections too.
 */
export function trackConnections(options: TrackConnectionsOptions): void {
  const { server, maxConnections, onShed, onAcceptError } = options;
  const self: ListeningServer = { idle: new Map(), onShed };
  const idle = self.idle;
  const open = new Set<Socket>();
  const inFlight = new Map<Socket, number>();
  const becomeIdle = (socket: Socket) => {
    idle.delete(socket);
    idle.set(socket, nextIdleOrder++);
  };
  const drop = (socket: Socket) => {
    open.delete(socket);
    idle.delete(socket);
    inFlight.delete(socket);
  };

  server.on('connection', (socket: Socket) => {
    open.add(socket);
    becomeIdle(socket);
    socket.once('close', () => drop(socket));
    if (open.size <= maxConnections) return;
    // The new connection is the youngest idle one: it goes only when no other is idle.
    const victim = idle.keys().next().value as Socket;
    drop(victim);
    victim.destroy();
    if (victim !== socket) onShed?.(1, 'max-connections');
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    if (!open.has(socket)) return;
    idle.delete(socket);
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      if (left > 0) inFlight.set(socket, left);
      else if (open.has(socket) && !socket.destroyed) {
        inFlight.delete(socket);
        becomeIdle(socket);
      }
    });
  });
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (error.syscall === 'accept') {
      onAcceptError?.(error);
      if (isDescriptorExhaustion(error)) shedIdleConnections();
      return;
    }
    // Alone, this listener would hide what Node otherwise throws (Fastify's listen has its own).
    if (server.listenerCount('error') === 1) throw error;
  });
  server.once('listening', () => {
    // A websocket's connection is never idle. Listened to only where a plugin handles upgrades:
    // any 'upgrade' listener makes Node hand such requests over instead of serving them.
    if (server.listenerCount('upgrade') > 0) {
      server.on('upgrade', (request: IncomingMessage) => {
        idle.delete(request.socket);
        inFlight.set(request.socket, Number.POSITIVE_INFINITY);
      });
    }
    listening.add(self);
    watchDescriptors();
  });
  server.once('close', () => {
    listening.delete(self);
    unwatchDescriptors();
  });
}
