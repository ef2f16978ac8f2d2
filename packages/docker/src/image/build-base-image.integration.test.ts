import { readdir } from 'node:fs/promises';
import os from 'node:os';
import { WorkspaceError } from '@agent-workspace/core';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { requireDockerEngine } from '../testing/require-docker-engine.js';
import { baseImageTag } from './base-image-tag.js';
import { BASE_IMAGE_PACKAGES, buildBaseImage } from './build-base-image.js';
import type { ImageProgressEvent } from './image-progress.js';
import { readAptMirror } from './read-apt-mirror.js';
import { readHostSuite } from './read-host-suite.js';
import { runInImage } from './test-support/run-in-image.js';

/** Temporary root file systems of base image builds. */
const tempRoots = async () =>
  (await readdir(os.tmpdir())).filter((name) => name.startsWith('agent-workspace-base-'));

const dockerAvailable = await requireDockerEngine('base image tests');
const isRoot = process.getuid?.() === 0;

// A cold build runs debootstrap (about a minute); later runs reuse the image by its tag.
describe.skipIf(!dockerAvailable)('buildBaseImage', () => {
  const docker = new Docker();

  it('builds or reuses the image tagged by its recipe, with node, git, tini and bash', async () => {
    const suite = await readHostSuite();
    const image = await buildBaseImage({ docker });
    expect(image.contentTag).toBe(
      baseImageTag({
        suite,
        mirror: await readAptMirror({ suite }),
        nodeVersion: process.version,
        architecture: process.arch,
        include: BASE_IMAGE_PACKAGES,
      }),
    );
    expect(image.tag).toBe(image.contentTag);
    const { exitCode, output } = await runInImage(
      docker,
      image.tag,
      'node --version; git --version; tini --version; echo "$BASH_VERSION" | cut -c1; stat -c %a /tmp; ls /var/cache/apt/archives | wc -l',
    );
    expect(exitCode).toBe(0);
    const lines = output.trim().split('\n');
    expect(lines[0]).toBe(process.version);
    expect(lines[1]).toMatch(/^git version /);
    expect(lines[2]).toMatch(/^tini version /);
    expect(lines.slice(3)).toEqual(['5', '1777', '1']);
  });

  it('reuses the image on a second call without running debootstrap', async () => {
    const first = await buildBaseImage({ docker });
    const events: ImageProgressEvent[] = [];
    const again = await buildBaseImage({ docker, onProgress: (event) => events.push(event) });
    expect(again).toEqual({ ...first, cached: true });
    expect(events.map((event) => event.type)).toEqual(['cached', 'done']);
  });

  it('fails with a typed error and leaves no temporary folder when debootstrap fails', async () => {
    const before = await tempRoots();
    // Nothing listens on the discard port: debootstrap cannot fetch the release file.
    const error = await buildBaseImage({
      docker,
      suite: 'bookworm',
      mirror: 'http://127.0.0.1:9/debian',
    }).catch((caught) => caught);
    expect(WorkspaceError.isInstance(error, 'PROVISIONING_ERROR')).toBe(true);
    expect((error as Error).message).toMatch(isRoot ? /debootstrap of bookworm/ : /needs root/);
    expect(await tempRoots()).toEqual(before);
  });

  it.skipIf(!isRoot)('stops on abort and removes the temporary root file system', async () => {
    const before = await tempRoots();
    const suite = await readHostSuite();
    const controller = new AbortController();
    const events: ImageProgressEvent[] = [];
    // A trailing slash makes a new recipe, so nothing is cached and debootstrap starts.
    const error = await buildBaseImage({
      docker,
      suite,
      mirror: `${await readAptMirror({ suite })}/`,
      signal: controller.signal,
      onProgress: (event) => {
        events.push(event);
        if (event.type === 'log') controller.abort();
      },
    }).catch((caught) => caught);
    expect(WorkspaceError.isInstance(error, 'ABORTED')).toBe(true);
    expect(events[0]).toMatchObject({
      type: 'step',
      message: expect.stringContaining('debootstrap'),
    });
    expect(await tempRoots()).toEqual(before);
  });
});
