import path from 'node:path';
import { Readable } from 'node:stream';
import { WorkspaceError } from '@agent-workspace/core';
import {
  errorObservation,
  type FileReadArgs,
  type FileReadObservationWire,
  type FileWriteArgs,
  type FileWriteObservationWire,
  type ObservationWire,
} from '@agent-workspace/protocol';
import type { ServerContext } from '../app/server-context.js';
import { readServerFile, writeServerFile } from './server-files.js';

/** Largest file `read` and `write` actions load, in bytes. */
export const MAX_ACTION_FILE_BYTES = 16 * 1024 * 1024;

/** Files `read` answers as a `data:` URL, by extension. */
const BINARY_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.bmp': 'image/bmp',
  '.pdf': 'application/pdf',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * OpenHands' `read` (default implementation): lines `start` up to `end` (`-1`: to the last) of a
 * text file; images, PDFs and videos whole as a `data:` URL. The file is read through the
 * server's path walker. A missing file, a directory or undecodable bytes are `error`
 * observations the agent can read, as in OpenHands.
 */
export async function readFileAction(
  context: ServerContext,
  args: FileReadArgs,
): Promise<ObservationWire> {
  const target = absolute(context, args.path);
  let bytes: Buffer;
  try {
    bytes = await readServerFile(
      context.paths,
      args.path,
      'action.args.path',
      MAX_ACTION_FILE_BYTES,
    );
  } catch (error) {
    return pathObservation(context, error, target, 'read');
  }
  const type = BINARY_TYPES[path.extname(target).toLowerCase()];
  let content: string;
  if (type !== undefined) {
    content = `data:${type};base64,${bytes.toString('base64')}`;
  } else {
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return errorObservation(`File could not be decoded as utf-8: ${target}.`, 'NOT_UTF8');
    }
    content = splitLines(text)
      .slice(args.start, args.end === -1 ? undefined : args.end)
      .join('');
  }
  const observation: FileReadObservationWire = {
    observation: 'read',
    content,
    message: `I read the file ${target}.`,
    extras: { path: target, impl_source: 'default' },
  };
  return observation;
}

/**
 * OpenHands' `write`: `content` replaces lines `start` up to `end` (`-1`: through the last) of an
 * existing text file, or becomes a new file (missing directories are created). The file is
 * replaced atomically through the server's path walker, keeping its permissions.
 */
export async function writeFileAction(
  context: ServerContext,
  args: FileWriteArgs,
): Promise<ObservationWire> {
  const target = absolute(context, args.path);
  const inserted = args.content.split('\n').map((line) => `${line}\n`);
  let lines = inserted;
  try {
    const existing = utf8.decode(
      await readServerFile(context.paths, args.path, 'action.args.path', MAX_ACTION_FILE_BYTES),
    );
    const original = splitLines(existing);
    lines = [
      ...original.slice(0, args.start),
      ...inserted,
      ...(args.end === -1 ? [] : original.slice(args.end)),
    ];
  } catch (error) {
    if (!WorkspaceError.isInstance(error, 'NOT_FOUND')) {
      return error instanceof TypeError
        ? errorObservation(`File could not be decoded as utf-8: ${target}.`, 'NOT_UTF8')
        : pathObservation(context, error, target, 'write');
    }
  }
  try {
    await writeServerFile(context, args.path, 'action.args.path', Readable.from([lines.join('')]));
  } catch (error) {
    return pathObservation(context, error, target, 'write');
  }
  const observation: FileWriteObservationWire = {
    observation: 'write',
    content: '',
    message: `I wrote to the file ${target}.`,
    extras: { path: target },
  };
  return observation;
}

/** The lines of `text`, each with its line break. */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function absolute(context: ServerContext, input: string): string {
  return path.resolve(context.options.workingDir, input);
}

/** A path failure as the `error` observation OpenHands answers with. */
function pathObservation(
  context: ServerContext,
  error: unknown,
  target: string,
  verb: 'read' | 'write',
): ObservationWire {
  if (!WorkspaceError.isInstance(error)) throw error;
  if (error.code === 'NOT_FOUND') {
    return errorObservation(
      `File not found: ${target}. Your current working directory is ${context.options.workingDir}.`,
      'NOT_FOUND',
    );
  }
  if (error.details.reason === 'is-directory') {
    return errorObservation(
      `Path is a directory: ${target}. You can only ${verb} files.`,
      'IS_DIRECTORY',
    );
  }
  return errorObservation(`Cannot ${verb} ${target}: ${error.message}`, error.code);
}
