#!/usr/bin/env node
import { createRequire } from 'node:module';
import { WorkspaceError } from '@agent-workspace/core';
import Docker from 'dockerode';
import { CLI_USAGE, type CliCommand, parseCliArgs } from './cli/parse-cli-args.js';
import { createProgressPrinter } from './cli/progress-printer.js';
import { AGENT_SERVER_IMAGE_REPOSITORY } from './image/agent-server-image-tag.js';
import { buildAgentServerImage } from './image/build-agent-server-image.js';
import { buildBaseImage } from './image/build-base-image.js';
import type { BuiltImage } from './image/image-progress.js';
import { tagImage } from './image/tag-image.js';

/** The name `build-image` also gives the image it builds: a stable name for configs and docs. */
const LATEST_AGENT_SERVER_IMAGE = `${AGENT_SERVER_IMAGE_REPOSITORY}:latest`;

/** ` [CODE]` of a `WorkspaceError`, for the message line; empty for anything else. */
function codeOf(error: unknown): string {
  return WorkspaceError.isInstance(error) ? ` [${error.code}]` : '';
}

/** `agent-workspace-docker`: builds the base and agent-server images; prints the image name. */
async function main(): Promise<number> {
  let command: CliCommand;
  try {
    command = parseCliArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`agent-workspace-docker${codeOf(error)}: ${(error as Error).message}\n`);
    process.stderr.write("Run 'agent-workspace-docker --help' for usage.\n");
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(CLI_USAGE);
    return 0;
  }
  if (command.kind === 'version') {
    const { version } = createRequire(import.meta.url)('../package.json') as { version: string };
    process.stdout.write(`${version}\n`);
    return 0;
  }

  const controller = new AbortController();
  const onSignal = (): void => {
    // A second signal gives up on the clean-up.
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const printer = createProgressPrinter(process.stderr);
  const docker = new Docker();
  const common = { docker, signal: controller.signal, onProgress: printer.onProgress };
  try {
    let image: BuiltImage;
    if (command.kind === 'build-base-image') {
      image = await buildBaseImage({ ...common, ...command });
    } else {
      const built = await buildAgentServerImage({ ...common, ...command });
      await tagImage(docker, built.imageId, LATEST_AGENT_SERVER_IMAGE);
      image = built;
    }
    printer.close();
    process.stdout.write(`${image.tag}\n`);
    return 0;
  } catch (error) {
    printer.close();
    process.stderr.write(`agent-workspace-docker${codeOf(error)}: ${(error as Error).message}\n`);
    return controller.signal.aborted ? 130 : 1;
  }
}

process.exitCode = await main();
