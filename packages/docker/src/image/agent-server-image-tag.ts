import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { ContentHash } from './content-hash.js';

/** Repository of the agent-server images. */
export const AGENT_SERVER_IMAGE_REPOSITORY = 'agent-workspace/agent-server';

/** Options of {@link agentServerImageTag}. */
export interface AgentServerImageTagOptions {
  /** The Dockerfile's bytes. */
  dockerfile: Uint8Array;
  /** The bundle folder copied into the image. */
  bundleDir: string;
  /** Id of the base image (`sha256:...`). */
  baseImageId: string;
}

/** Paths of every file under `dir`, relative with `/` separators, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .map((relative) => relative.split(path.sep).join('/'))
    .sort();
}

/**
 * The content-hash tag `agent-workspace/agent-server:<12 hex>` over the Dockerfile, every
 * bundle file (path and bytes) and the base image id: it changes exactly when a rebuild would
 * produce a different image.
 */
export async function agentServerImageTag(options: AgentServerImageTagOptions): Promise<string> {
  const hash = new ContentHash()
    .add('dockerfile', options.dockerfile)
    .add('base', options.baseImageId);
  for (const file of await listFiles(options.bundleDir)) {
    const absolute = path.join(options.bundleDir, file);
    const { size } = await stat(absolute);
    await hash.addStream(`bundle/${file}`, size, createReadStream(absolute));
  }
  return `${AGENT_SERVER_IMAGE_REPOSITORY}:${hash.digest()}`;
}
