import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type CommandResult, LocalWorkspace } from '@agent-workspace/core';
import { PathWalker } from '@agent-workspace/core/internal';
import { AGENT_SERVER_ROUTES, conversationPath } from '@agent-workspace/protocol';
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgentServer } from '../create-agent-server.js';
import { startTestServer } from '../testing/start-test-server.js';
import { CONVERSATIONS_DIR } from './conversation-directories.js';
import { conversationStatus, describeConversation } from './conversation-info.js';
import { ConversationService } from './conversation-service.js';
import type { ConversationWorkspaceRequest } from './conversation-service-options.js';
import {
  api,
  observationLine,
  scriptedAgent,
  startRequest,
  waitForStatus,
} from './test-support/conversation-api.js';

const R = AGENT_SERVER_ROUTES;

let workingDir: string;
let stateDir: string;

beforeEach(async () => {
  workingDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'conversation-work-')));
  stateDir = await mkdtemp(path.join(os.tmpdir(), 'conversation-state-'));
});

afterEach(async () => {
  await rm(workingDir, { recursive: true, force: true });
  await rm(stateDir, { recursive: true, force: true });
});

/** The lines the agents' `echo run >> runs.txt` calls wrote. */
async function runs(): Promise<number> {
  const file = path.join(workingDir, 'runs.txt');
  return existsSync(file) ? (await readFile(file, 'utf8')).split('\n').filter(Boolean).length : 0;
}

const countOf = (statuses: number[], status: number) =>
  statuses.filter((candidate) => candidate === status).length;

describe('ConversationService creation', () => {
  it('answers twelve parallel starts with one id with one 201 and eleven 200s, and runs the agent once', async () => {
    await using server = await startTestServer({ workingDir, stateDir });
    const id = crypto.randomUUID();
    const body = startRequest(workingDir, scriptedAgent('echo run >> runs.txt'), id);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => api(server.url, 'POST', R.conversations, body)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(countOf(statuses, 201)).toBe(1);
    expect(countOf(statuses, 200)).toBe(11);
    for (const answer of answers) expect(answer.json.id).toBe(id);
    await waitForStatus(server.url, id, 'finished');
    expect(await runs()).toBe(1);
    expect(await readdir(path.join(stateDir, CONVERSATIONS_DIR))).toEqual([id]);
    expect((await api(server.url, 'GET', R.countConversations)).json).toBe(1);
  });

  it('serializes starts and deletes of one id: answers agree with what is left, no run doubles', async () => {
    await using server = await startTestServer({ workingDir, stateDir });
    const id = crypto.randomUUID();
    const body = startRequest(workingDir, scriptedAgent('echo run >> runs.txt'), id);
    expect((await api(server.url, 'POST', R.conversations, body)).status).toBe(201);
    await waitForStatus(server.url, id, 'finished');

    const target = conversationPath(R.conversation, id);
    const requests = Array.from({ length: 16 }, (_, index) =>
      index % 4 === 0
        ? api(server.url, 'DELETE', target).then((answer) => ({ op: 'delete', ...answer }))
        : api(server.url, 'POST', R.conversations, body).then((answer) => ({
            op: 'create',
            ...answer,
          })),
    );
    const answers = await Promise.all(requests);
    const deleted = answers.filter((answer) => answer.op === 'delete' && answer.status === 200);
    const created = answers.filter((answer) => answer.op === 'create' && answer.status === 201);
    for (const answer of answers) {
      expect(answer.op === 'delete' ? [200, 400] : [200, 201]).toContain(answer.status);
    }
    // Each delete that found it freed the id; each 201 took it again.
    const exists = created.length === deleted.length;
    expect(exists || created.length === deleted.length - 1).toBe(true);
    const info = await api(server.url, 'GET', target);
    expect(info.status).toBe(exists ? 200 : 404);
    const dir = path.join(stateDir, CONVERSATIONS_DIR, id);
    expect(existsSync(path.join(dir, 'meta.json'))).toBe(exists);
    expect(existsSync(path.join(dir, 'conversation', 'state.json'))).toBe(exists);
    if (exists) await waitForStatus(server.url, id, 'finished');
    // A deleted conversation's run may have been stopped before its command; none ran twice.
    expect(await runs()).toBeLessThanOrEqual(1 + created.length);
    if (exists) {
      const observations = await api(
        server.url,
        'GET',
        `${conversationPath(R.countConversationEvents, id)}?kind=ObservationEvent`,
      );
      expect(observations.json).toBe(2); // the command's and finish's
    }
  });

  it('lists persisted conversations lazily and answers racing starts of a known id with 200', async () => {
    const options = { port: 0, logLevel: 'silent' as const, workingDir, stateDir };
    const id = crypto.randomUUID();
    const body = startRequest(workingDir, scriptedAgent('echo run >> runs.txt'), id);
    {
      await using first = await createAgentServer(options);
      expect((await api(first.url, 'POST', R.conversations, body)).status).toBe(201);
      await waitForStatus(first.url, id, 'finished');
    }
    // A directory a create left without its meta.json goes at the listing.
    const unfinished = path.join(stateDir, CONVERSATIONS_DIR, crypto.randomUUID());
    await mkdir(path.join(unfinished, 'conversation'), { recursive: true });

    await using second = await createAgentServer(options);
    const fresh = crypto.randomUUID();
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => api(second.url, 'POST', R.conversations, body)),
      ...Array.from({ length: 10 }, () =>
        api(second.url, 'POST', R.conversations, { ...body, conversation_id: fresh }),
      ),
    ]);
    const known = answers.slice(0, 10);
    const started = answers.slice(10);
    expect(known.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    for (const answer of known)
      expect(answer.json).toMatchObject({ id, execution_status: 'finished' });
    expect(
      countOf(
        started.map((answer) => answer.status),
        201,
      ),
    ).toBe(1);
    await waitForStatus(second.url, fresh, 'finished');
    expect(await runs()).toBe(2); // the first conversation did not run again
    expect(existsSync(unfinished)).toBe(false);
  });
});

describe('ConversationService over its workspace seam', () => {
  /** Workspaces the service asked for, what ran in them and whether they were closed. */
  function recordingWorkspaces() {
    const made: { request: ConversationWorkspaceRequest; commands: string[]; closed: boolean }[] =
      [];
    const factory = (request: ConversationWorkspaceRequest) => {
      const entry = { request, commands: [] as string[], closed: false };
      made.push(entry);
      return new (class extends LocalWorkspace {
        override executeCommand(
          command: string,
          options?: Parameters<LocalWorkspace['executeCommand']>[1],
        ): Promise<CommandResult> {
          entry.commands.push(command);
          return super.executeCommand(command, options);
        }
        override async close(): Promise<void> {
          entry.closed = true;
          await super.close();
        }
      })({ workingDir: request.workingDir });
    };
    return { made, factory };
  }

  function serviceWith(
    paths: PathWalker,
    workspace: (request: ConversationWorkspaceRequest) => LocalWorkspace,
    maxLoadedConversations?: number,
  ): ConversationService {
    return new ConversationService({
      paths,
      stateDir,
      log: Fastify().log,
      actions: () => null,
      workspace,
      maxLoadedConversations,
    });
  }

  const request = (conversationId: string, command: string) =>
    startRequest(workingDir, scriptedAgent(command), conversationId) as Parameters<
      ConversationService['create']
    >[0];

  it('makes the workspace through the seam on create and on load, and closes it on unload and delete', async () => {
    const paths = PathWalker.open({ workingDir, confine: false });
    const { made, factory } = recordingWorkspaces();
    const service = serviceWith(paths, factory, 1);
    const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    try {
      for (const [index, id] of ids.entries()) {
        const { record } = await service.create(request(id, `echo ${index}`));
        await vi.waitFor(() => expect(conversationStatus(record)).toBe('finished'));
      }
      expect(made.map((entry) => entry.request)).toEqual(
        ids.map((conversationId) => ({ workingDir, conversationId })),
      );
      // The agents' commands ran in their own workspaces.
      expect(made.map((entry) => entry.commands.length > 0)).toEqual([true, true, true]);
      // Idle ones past maxLoadedConversations were unloaded, their workspaces closed.
      await vi.waitFor(() => expect(service.loadedCount).toBe(1));
      expect(made.filter((entry) => entry.closed)).toHaveLength(2);

      // Used again: loaded through the seam, with its history.
      const first = ids[0]!;
      const response = await service.use(first, (held) =>
        held.conversation.history.finalResponse(),
      );
      expect(response).toBe('all done');
      expect(made.at(-1)?.request).toEqual({ workingDir, conversationId: first });
      expect(await service.delete(first)).toBe(true);
      expect(made.at(-1)?.closed).toBe(true);
      expect(await service.delete(first)).toBe(false);
    } finally {
      await service.close();
      paths.close();
    }
    expect(made.every((entry) => entry.closed)).toBe(true);
  });

  it('lists from metadata alone after a restart, and loads one conversation only when it is used', async () => {
    const paths = PathWalker.open({ workingDir, confine: false });
    const id = crypto.randomUUID();
    const before = recordingWorkspaces();
    const first = serviceWith(paths, before.factory);
    const { record } = await first.create(request(id, 'echo one'));
    await vi.waitFor(() => expect(conversationStatus(record)).toBe('finished'));
    await first.close();
    const eventsFile = path.join(stateDir, CONVERSATIONS_DIR, id, 'conversation', 'events.jsonl');
    await appendFile(eventsFile, `${observationLine(1000, 1)}\n`);
    const lastTimestamp = JSON.parse(observationLine(0, 1)).timestamp as string;

    const after = recordingWorkspaces();
    const second = serviceWith(paths, after.factory);
    try {
      await second.ready();
      const listed = second.get(id);
      expect(listed).toMatchObject({
        loaded: undefined,
        status: 'finished',
        updatedAt: lastTimestamp,
      });
      expect(second.loadedCount).toBe(0);
      expect(after.made).toHaveLength(0);
      expect(await describeConversation(listed!)).toMatchObject({
        id,
        execution_status: 'finished',
        agent: { llm: { kind: 'ScriptedLLM' } },
      });
      expect(second.loadedCount).toBe(0);

      const count = await second.use(id, async (held) => {
        let events = 0;
        for await (const _ of held.conversation.history.read()) events += 1;
        return events;
      });
      expect(count).toBeGreaterThan(5);
      expect(second.loadedCount).toBe(1);
      expect(after.made.map((entry) => entry.request.conversationId)).toEqual([id]);
    } finally {
      await second.close();
      paths.close();
    }
  });
});

describe('ConversationService options', () => {
  it('refuses history bounds out of order and no room for loaded conversations, naming the option', () => {
    const paths = PathWalker.open({ workingDir, confine: false });
    const base = {
      paths,
      stateDir,
      log: Fastify().log,
      actions: () => null,
      workspace: ({ workingDir }: ConversationWorkspaceRequest) =>
        new LocalWorkspace({ workingDir }),
    };
    try {
      expect(() => new ConversationService({ ...base, history: { maxEventBytes: 1024 } })).toThrow(
        /history\.maxEventBytes must be an integer of at least 16384/,
      );
      expect(
        () => new ConversationService({ ...base, history: { maxMemoryBytes: 100 * 1024 ** 2 } }),
      ).toThrow(/history\.maxDiskBytes must be an integer of at least maxMemoryBytes/);
      expect(() => new ConversationService({ ...base, maxLoadedConversations: 0 })).toThrow(
        /maxLoadedConversations/,
      );
      expect(() => new ConversationService(base)).not.toThrow();
    } finally {
      paths.close();
    }
  });
});

describe('ConversationService runs', () => {
  it('starts a run asked for the moment the last one says paused, while it still writes its events', async () => {
    const paths = PathWalker.open({ workingDir, confine: false });
    const service = new ConversationService({
      paths,
      stateDir,
      log: Fastify().log,
      actions: () => null,
      workspace: (request) => new LocalWorkspace({ workingDir: request.workingDir }),
    });
    const id = crypto.randomUUID();
    try {
      const agent = scriptedAgent(
        'while [ ! -e go ]; do sleep 0.01; done; echo one >> runs.txt',
        'echo two >> runs.txt',
      );
      const { record } = await service.create(
        startRequest(workingDir, agent, id) as Parameters<ConversationService['create']>[0],
      );
      await vi.waitFor(() => expect(conversationStatus(record)).toBe('running'));
      const held = (await service.acquire(id))!;
      let restarted: Promise<void> | undefined;
      const unsubscribe = held.conversation.events.subscribe((event) => {
        if (
          restarted === undefined &&
          event.kind === 'ConversationStateUpdateEvent' &&
          event.key === 'execution_status' &&
          event.value === 'paused'
        ) {
          // Told inside the status change: the paused run has not written its end yet.
          expect(held.run).toBeDefined();
          restarted = (async () => service.startRun(held))();
        }
      });
      try {
        const pausing = service.pause(id);
        await appendFile(path.join(workingDir, 'go'), '');
        await pausing;
        await vi.waitFor(() => expect(restarted).toBeDefined());
        await restarted;
        await vi.waitFor(() => expect(conversationStatus(record)).toBe('finished'));
        expect(await runs()).toBe(2);
      } finally {
        unsubscribe();
        service.release(held);
      }
    } finally {
      await service.close();
      paths.close();
    }
  });
});
