import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { WorkspaceError } from '@agent-workspace/core';
import { z } from 'zod';

/** Version of the Jupyter messaging protocol this client speaks. */
const PROTOCOL_VERSION = '5.3';

/** The frame that separates routing identities from the message. */
const DELIMITER = '<IDS|MSG>';

const headerSchema = z.looseObject({
  msg_id: z.string(),
  msg_type: z.string(),
  session: z.string().optional(),
  date: z.string().optional(),
  version: z.string().optional(),
});

const dictSchema = z.record(z.string(), z.unknown());

/** A message header (`header`, and `parent_header` when there is a parent). */
export type JupyterHeader = z.infer<typeof headerSchema>;

/** One Jupyter message, decoded; `parentHeader` is `undefined` when it has no parent. */
export interface JupyterMessage {
  /** Routing identities before the delimiter (the topic on iopub). */
  identities: Buffer[];
  header: JupyterHeader;
  parentHeader: JupyterHeader | undefined;
  metadata: Record<string, unknown>;
  content: Record<string, unknown>;
  buffers: Buffer[];
}

/**
 * Builds, signs, encodes and verifies Jupyter messages (protocol 5.3) on the wire:
 * `[...identities, '<IDS|MSG>', hmac, header, parent_header, metadata, content, ...buffers]`, the
 * HMAC-SHA256 hex digest of the four JSON frames under the connection key.
 */
export class JupyterCodec {
  /** This client's session id, in the header of every message it builds. */
  readonly session = randomUUID();
  readonly #key: Buffer;

  /** `key`: the connection file's key; messages are signed and checked with it. */
  constructor(key: string) {
    if (key.length === 0) throw new TypeError('JupyterCodec needs a non-empty key');
    this.#key = Buffer.from(key, 'utf8');
  }

  /** A new request of `msgType` with a fresh `msg_id`. */
  request(msgType: string, content: Record<string, unknown>): JupyterMessage {
    return {
      identities: [],
      header: {
        msg_id: randomUUID(),
        msg_type: msgType,
        session: this.session,
        username: 'agent-workspace',
        date: new Date().toISOString(),
        version: PROTOCOL_VERSION,
      },
      parentHeader: undefined,
      metadata: {},
      content,
      buffers: [],
    };
  }

  /** The frames of `message`, signed. */
  encode(message: JupyterMessage): Buffer[] {
    const parts = [
      message.header,
      message.parentHeader ?? {},
      message.metadata,
      message.content,
    ].map((part) => Buffer.from(JSON.stringify(part), 'utf8'));
    return [
      ...message.identities,
      Buffer.from(DELIMITER),
      Buffer.from(this.#sign(parts), 'ascii'),
      ...parts,
      ...message.buffers,
    ];
  }

  /** Decodes frames received from the kernel; a bad signature or shape is a `PROTOCOL_ERROR`. */
  decode(frames: readonly Buffer[]): JupyterMessage {
    const delimiter = frames.findIndex((frame) => frame.toString('latin1') === DELIMITER);
    if (delimiter < 0) throw protocolError('has no <IDS|MSG> delimiter');
    const [signature, ...rest] = frames.slice(delimiter + 1);
    const parts = rest.slice(0, 4);
    if (signature === undefined || parts.length < 4) throw protocolError('has too few frames');
    const expected = Buffer.from(this.#sign(parts), 'ascii');
    if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) {
      throw protocolError('has a bad signature');
    }
    const [header, parent, metadata, content] = parts.map(parseJson);
    const parentHeader = headerSchema.safeParse(parent);
    return {
      identities: frames.slice(0, delimiter),
      header: parseWith(headerSchema, header, 'header'),
      parentHeader: parentHeader.success ? parentHeader.data : undefined,
      metadata: parseWith(dictSchema, metadata, 'metadata'),
      content: parseWith(dictSchema, content, 'content'),
      buffers: rest.slice(4),
    };
  }

  #sign(parts: readonly Buffer[]): string {
    const hmac = createHmac('sha256', this.#key);
    for (const part of parts) hmac.update(part);
    return hmac.digest('hex');
  }
}

function protocolError(reason: string): WorkspaceError {
  return new WorkspaceError({ code: 'PROTOCOL_ERROR', message: `a kernel message ${reason}` });
}

function parseJson(frame: Buffer): unknown {
  try {
    return JSON.parse(frame.toString('utf8'));
  } catch {
    throw protocolError('has a frame that is not JSON');
  }
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown, part: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw protocolError(`has a malformed ${part}`);
  return parsed.data;
}
