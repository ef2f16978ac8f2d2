/** The `deferInit` option: validated, and turned into the container's environment; no engine. */
import { WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it } from 'vitest';
import { buildContainerSpec, DEFERRED_INIT_VARIABLE } from './build-container-spec.js';
import { DockerWorkspace } from './docker-workspace.js';

const image = 'agent-workspace/agent-server:dev';
const spec = (deferInit: boolean | undefined, env?: Record<string, string>) =>
  buildContainerSpec({
    options: { image, publishAddress: '127.0.0.1', deferInit, env },
    labels: {},
    environment: {},
    apiKey: 'k'.repeat(32),
  });

describe('DockerWorkspace deferInit', () => {
  it('starts the agent-server dormant through OH_DEFERRED_INIT, which env cannot turn off', () => {
    expect(DEFERRED_INIT_VARIABLE).toBe('OH_DEFERRED_INIT');
    expect(spec(true).Env).toContain('OH_DEFERRED_INIT=true');
    const env = spec(true, { OH_DEFERRED_INIT: 'false' }).Env!;
    expect(env.at(-1)).toBe('OH_DEFERRED_INIT=true');
    for (const off of [false, undefined]) {
      expect(spec(off).Env!.some((entry) => entry.startsWith('OH_DEFERRED_INIT='))).toBe(false);
    }
  });

  it('rejects a deferInit that is not a boolean, naming the field', () => {
    let error: unknown;
    try {
      new DockerWorkspace({ image, deferInit: 'yes' as unknown as boolean });
    } catch (caught) {
      error = caught;
    }
    expect(WorkspaceError.isInstance(error, 'INVALID_CONFIG'), String(error)).toBe(true);
    expect((error as WorkspaceError).details.fields).toContain('deferInit');
  });
});
