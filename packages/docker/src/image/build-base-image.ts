import { chmod, copyFile, mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { abortedError, WorkspaceError } from '@agent-workspace/core';
import Docker from 'dockerode';
import { execa } from 'execa';
import { baseImageTag } from './base-image-tag.js';
import { findImage } from './find-image.js';
import type { BuiltImage, ImageProgressListener } from './image-progress.js';
import { parseImageReference } from './image-reference.js';
import { importRootFilesystem } from './import-root-filesystem.js';
import { readAptMirror } from './read-apt-mirror.js';
import { readHostSuite } from './read-host-suite.js';
import { removeRootTree } from './remove-root-tree.js';
import { runDebootstrap } from './run-debootstrap.js';
import { tagImage } from './tag-image.js';
import { toImageError } from './to-image-error.js';

/** Debian packages of the base image besides minbase (bash is part of minbase). */
export const BASE_IMAGE_PACKAGES: readonly string[] = [
  // The agent-server's command sandbox (`--sandbox`, `--allow-host`).
  'bubblewrap',
  'ca-certificates',
  'git',
  // The C++ runtime the official Node binaries link against.
  'libstdc++6',
  'tini',
];

/** Dockerfile instructions applied to the imported root file system. */
const IMAGE_CHANGES = [
  'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  'ENV LANG=C.UTF-8',
  'CMD ["bash"]',
];

/** Where the host's Node binary goes in the image. */
const NODE_IN_IMAGE = 'usr/local/bin/node';

/** Options of {@link buildBaseImage}. */
export interface BuildBaseImageOptions {
  /**
   * The engine to import into.
   * @default new Docker() (DOCKER_HOST or the local socket)
   */
  docker?: Docker | undefined;
  /**
   * Debian suite to install.
   * @default the host's, from /etc/os-release VERSION_CODENAME
   */
  suite?: string | undefined;
  /**
   * Debian archive to download from.
   * @default the host's main archive for the suite, from its apt sources
   */
  mirror?: string | undefined;
  /** An extra name (`name[:tag]`) for the image; the content-hash tag is always set. */
  tag?: string | undefined;
  /** Stops the work (and cleans up); the call then rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** Receives progress events. */
  onProgress?: ImageProgressListener | undefined;
}

/** Throws unless this process can run debootstrap (root, debootstrap installed). */
async function assertCanDebootstrap(): Promise<void> {
  if (process.getuid?.() !== 0) {
    throw new WorkspaceError({
      code: 'PROVISIONING_ERROR',
      message:
        'building the base image runs debootstrap, which needs root: run it as root (e.g. `sudo npx agent-workspace-docker build-base-image`) or use an image with Node 20+ as base',
    });
  }
  const probe = await execa('debootstrap', ['--version'], {
    reject: false,
    env: { PATH: `${process.env.PATH ?? ''}:/usr/local/sbin:/usr/sbin:/sbin` },
  });
  if (probe.failed) {
    throw new WorkspaceError({
      code: 'PROVISIONING_ERROR',
      message:
        'building the base image needs debootstrap, which is not installed: install it (`apt-get install debootstrap`)',
      cause: probe,
    });
  }
}

/**
 * Builds the offline base image of the agent-server image with no registry access: a
 * debootstrap `minbase` of the host's Debian suite with git, tini and ca-certificates from the
 * host's own Debian mirror, plus the host's Node binary at `/usr/local/bin/node`, imported
 * into the engine (streamed, no archive on disk). Tagged `agent-workspace/base:<12 hex>` by a
 * hash of suite, mirror, Node version, architecture and package list; when that image exists
 * nothing is done, so this is cheap to call before every use.
 *
 * Building needs root and debootstrap (a `PROVISIONING_ERROR` {@link WorkspaceError} says so
 * otherwise). A `tag` that is not `name[:tag]` by Docker's grammar is `INVALID_ARGUMENT`, before
 * anything else is done. The temporary root file system is always deleted.
 */
export async function buildBaseImage(options: BuildBaseImageOptions = {}): Promise<BuiltImage> {
  if (options.tag !== undefined) parseImageReference(options.tag, 'tag', { allowDigest: false });
  if (options.signal?.aborted) throw abortedError(options.signal);
  try {
    return await buildOrReuse(options, options.docker ?? new Docker());
  } catch (error) {
    throw toImageError(error, 'base image build', options.signal);
  }
}

/** Returns the image with the content-hash tag, building it first when the engine lacks it. */
async function buildOrReuse(options: BuildBaseImageOptions, docker: Docker): Promise<BuiltImage> {
  const { signal, onProgress } = options;
  const suite = options.suite ?? (await readHostSuite());
  const mirror = options.mirror ?? (await readAptMirror({ suite }));
  const contentTag = baseImageTag({
    suite,
    mirror,
    nodeVersion: process.version,
    architecture: process.arch,
    include: BASE_IMAGE_PACKAGES,
  });
  const existing = await findImage(docker, contentTag);
  if (existing) {
    onProgress?.({ type: 'cached', message: `${contentTag} exists, nothing to build` });
  } else {
    await assertCanDebootstrap();
    if (signal?.aborted) throw abortedError(signal);
    const workDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'agent-workspace-base-')));
    try {
      const rootDir = path.join(workDir, 'rootfs');
      onProgress?.({ type: 'step', message: `debootstrap ${suite} from ${mirror}` });
      await runDebootstrap({
        suite,
        mirror,
        include: BASE_IMAGE_PACKAGES,
        targetDir: rootDir,
        signal,
        onProgress,
      });
      onProgress?.({ type: 'step', message: `adding node ${process.version}` });
      await installHostNode(rootDir);
      // Downloaded packages and indexes only make the image bigger.
      await rm(path.join(rootDir, 'var/cache/apt/archives'), { recursive: true, force: true });
      await rm(path.join(rootDir, 'var/lib/apt/lists'), { recursive: true, force: true });
      await mkdir(path.join(rootDir, 'var/cache/apt/archives/partial'), { recursive: true });
      await mkdir(path.join(rootDir, 'var/lib/apt/lists/partial'), { recursive: true });
      onProgress?.({ type: 'step', message: `importing ${contentTag}` });
      await importRootFilesystem({
        docker,
        rootDir,
        reference: contentTag,
        changes: IMAGE_CHANGES,
        signal,
        onProgress,
      });
    } finally {
      await removeRootTree(workDir);
    }
  }
  const imageId = existing?.Id ?? (await docker.getImage(contentTag).inspect()).Id;
  if (options.tag !== undefined) await tagImage(docker, imageId, options.tag);
  const tag = options.tag ?? contentTag;
  onProgress?.({ type: 'done', message: tag });
  return { tag, contentTag, imageId, cached: existing !== undefined };
}

/** Copies the running Node binary into the root file system and checks that it runs there. */
async function installHostNode(rootDir: string): Promise<void> {
  const source = await realpath(process.execPath);
  const target = path.join(rootDir, NODE_IN_IMAGE);
  await mkdir(path.dirname(target), { recursive: true });
  await copyFile(source, target);
  await chmod(target, 0o755);
  const check = await execa('chroot', [rootDir, `/${NODE_IN_IMAGE}`, '--version'], {
    reject: false,
    env: { PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` },
  });
  if (check.failed || check.stdout.trim() !== process.version) {
    throw new WorkspaceError({
      code: 'PROVISIONING_ERROR',
      message: `the host's Node binary (${source}) does not run in the base image (${check.shortMessage ?? check.stderr}); it may need shared libraries that minbase lacks, such as those of a distribution-built node: use an official Node build`,
      cause: check,
      details: { node: source },
    });
  }
}
