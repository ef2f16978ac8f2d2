import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace } from '@agent-workspace/core';
import { afterEach, beforeEach } from 'vitest';

/** A fresh temporary directory per test with a `LocalWorkspace` on its `work` folder. */
export interface ConversationTempWorkspace {
  /** The temporary directory holding everything below. */
  root: string;
  /** `root/work`: the workspace's working directory (created). */
  workingDir: string;
  /** `root/conversation`: a place for a conversation's persistence (not created). */
  persistenceDir: string;
  workspace: LocalWorkspace;
}

/**
 * Registers `beforeEach`/`afterEach` hooks that make a {@link ConversationTempWorkspace} named
 * after `prefix` for each test, then close the workspace and remove the directory. The returned
 * object's fields are replaced before every test.
 */
export function useConversationTempWorkspace(prefix: string): ConversationTempWorkspace {
  const temp = {} as ConversationTempWorkspace;
  beforeEach(async () => {
    temp.root = await mkdtemp(path.join(tmpdir(), prefix));
    temp.workingDir = path.join(temp.root, 'work');
    temp.persistenceDir = path.join(temp.root, 'conversation');
    temp.workspace = new LocalWorkspace({ workingDir: temp.workingDir });
    await temp.workspace.executeCommand(`mkdir -p ${JSON.stringify(temp.workingDir)}`, {
      cwd: temp.root,
    });
  });
  afterEach(async () => {
    await temp.workspace.close();
    await rm(temp.root, { recursive: true, force: true });
  });
  return temp;
}
