/**
 * The commit body of a snapshot: the engine merges every container key the body lacks, so the
 * body must name every variable and managed label of the container to keep their values out.
 */
import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { snapshotCommitConfig } from './snapshot-commit-config.js';

const imageConfig = {
  Env: ['PATH=/usr/bin:/bin', 'LANG=C.UTF-8'],
  Entrypoint: ['tini', '--', 'node', 'server.mjs'],
  Cmd: null,
  User: '10001',
  WorkingDir: '/workspace',
  Labels: { 'org.opencontainers.image.title': 'server' },
} as unknown as Docker.ImageInspectInfo['Config'];

const containerConfig = {
  Env: [
    'PATH=/override',
    'TINI_SUBREAPER=1',
    'USER_SECRET=hunter2',
    'SESSION_API_KEY=0123456789abcdef',
    'SESSION_API_KEY=0123456789abcdef',
  ],
  Cmd: ['--sandbox'],
  User: 'root',
  Labels: {
    team: 'platform',
    'agent-workspace.workspace-id': 'abc',
    'agent-workspace.keep-alive': 'true',
  },
} as unknown as Docker.ContainerInspectInfo['Config'];

describe('snapshotCommitConfig', () => {
  const config = snapshotCommitConfig({
    imageConfig,
    containerConfig,
    labels: { 'agent-workspace.snapshot': 'true' },
  });

  it("keeps the image's Env and names (without values) the container's other variables", () => {
    expect(config.Env).toEqual([
      'PATH=/usr/bin:/bin',
      'LANG=C.UTF-8',
      'TINI_SUBREAPER',
      'USER_SECRET',
      'SESSION_API_KEY',
    ]);
    expect(JSON.stringify(config)).not.toContain('hunter2');
    expect(JSON.stringify(config)).not.toContain('0123456789abcdef');
  });

  it('takes command, user and working directory from the image, not the container', () => {
    expect(config).toMatchObject({
      Entrypoint: ['tini', '--', 'node', 'server.mjs'],
      Cmd: null,
      User: '10001',
      WorkingDir: '/workspace',
    });
  });

  it('blanks the managed labels of the container and adds the snapshot labels', () => {
    expect(config.Labels).toEqual({
      'org.opencontainers.image.title': 'server',
      'agent-workspace.workspace-id': '',
      'agent-workspace.keep-alive': '',
      'agent-workspace.snapshot': 'true',
    });
  });
});
