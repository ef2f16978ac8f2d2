import path from 'node:path';
import { parseArgs } from 'node:util';
import { invalidArgument } from '@agent-workspace/core';
import { parseImageReference } from '../image/image-reference.js';

/** What the `agent-workspace-docker` command line asks for. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'build-base-image'; suite?: string; mirror?: string; tag?: string }
  | { kind: 'build-image'; baseImage: string; tag?: string; agentServerDir?: string };

/** `agent-workspace-docker --help` text. */
export const CLI_USAGE = `Usage: agent-workspace-docker <command> [options]

Builds the images DockerWorkspace runs. Progress goes to standard error; the image
name is the only line on standard output. Images are tagged by content hash and
reused when they exist.

Commands:
  build-base-image         Build the offline base image: debootstrap of the host's
                           Debian suite from its apt mirror, plus the host's node.
                           Needs root and debootstrap; no registry access.
    --suite <name>         Debian suite (default: the host's VERSION_CODENAME)
    --mirror <uri>         Debian archive (default: the host's apt source)
    --tag <name[:tag]>     An extra name for the image

  build-image              Build the agent-server image from the built bundle; it
                           is also tagged agent-workspace/agent-server:latest.
    --base-image <ref>     Base image with Node 20+ (required): node:20-bookworm-slim
                           or the name printed by build-base-image
    --tag <name[:tag]>     An extra name for the image
    --agent-server-dir <path>
                           A folder laid out like @agent-workspace/agent-server
                           (Dockerfile, dist/bundle/); default the installed package

Options:
  -h, --help               Show this help
  -v, --version            Show the version
`;

/**
 * Parses the command line (without `node` and the script). Throws an `INVALID_ARGUMENT`
 * {@link WorkspaceError} naming the flag for unknown commands, flags, missing values and image
 * names that are not references by Docker's grammar (`--base-image`, `--tag`).
 */
export function parseCliArgs(args: readonly string[]): CliCommand {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    throw invalidArgument('arguments', `are invalid: ${(error as Error).message}`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const [command, ...rest] = positionals;
  if (rest.length > 0) {
    throw invalidArgument('command', `takes no extra arguments, got "${rest.join(' ')}"`);
  }
  const allowed: Record<string, readonly string[]> = {
    'build-base-image': ['suite', 'mirror', 'tag'],
    'build-image': ['base-image', 'tag', 'agent-server-dir'],
  };
  if (command === undefined || !Object.hasOwn(allowed, command)) {
    throw invalidArgument(
      'command',
      `must be build-base-image or build-image, got "${command ?? ''}"`,
    );
  }
  for (const flag of Object.keys(values)) {
    if (!allowed[command]!.includes(flag)) {
      throw invalidArgument(`--${flag}`, `is not an option of ${command}`);
    }
  }
  for (const [flag, value] of Object.entries(values)) {
    if (value === '') throw invalidArgument(`--${flag}`, 'must not be empty');
  }
  if (values.tag !== undefined) parseImageReference(values.tag, '--tag', { allowDigest: false });
  if (command === 'build-base-image') {
    return { kind: command, suite: values.suite, mirror: values.mirror, tag: values.tag };
  }
  if (values['base-image'] === undefined) throw invalidArgument('--base-image', 'is required');
  parseImageReference(values['base-image'], '--base-image');
  return {
    kind: 'build-image',
    baseImage: values['base-image'],
    tag: values.tag,
    agentServerDir:
      values['agent-server-dir'] === undefined
        ? undefined
        : path.resolve(values['agent-server-dir']),
  };
}

/** node:util parseArgs over every flag of every command. */
function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      suite: { type: 'string' },
      mirror: { type: 'string' },
      tag: { type: 'string' },
      'base-image': { type: 'string' },
      'agent-server-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}
