import { createHmac } from 'node:crypto';
import { WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it } from 'vitest';
import { JupyterCodec } from './jupyter-codec.js';

const isProtocolError = (error: unknown) => WorkspaceError.isInstance(error, 'PROTOCOL_ERROR');

describe('JupyterCodec', () => {
  it('frames a request as identities, delimiter, HMAC-SHA256 of the four JSON parts, parts, buffers', () => {
    const codec = new JupyterCodec('secret');
    const message = {
      ...codec.request('execute_request', { code: '1 + 1' }),
      identities: [Buffer.from('id-1')],
      buffers: [Buffer.from([1, 2, 3])],
    };
    const frames = codec.encode(message);
    expect(frames.map((frame) => frame.toString()).slice(0, 2)).toEqual(['id-1', '<IDS|MSG>']);
    const parts = frames.slice(3, 7);
    const expected = createHmac('sha256', 'secret');
    for (const part of parts) expected.update(part);
    expect(frames[2]?.toString()).toBe(expected.digest('hex'));
    expect(JSON.parse(parts[0]?.toString() ?? '')).toMatchObject({
      msg_type: 'execute_request',
      session: codec.session,
      version: '5.3',
    });
    expect(JSON.parse(parts[1]?.toString() ?? '')).toEqual({});
    expect(JSON.parse(parts[3]?.toString() ?? '')).toEqual({ code: '1 + 1' });
    expect(frames[7]).toEqual(Buffer.from([1, 2, 3]));
  });

  it('decodes what it encodes, identities and buffers included', () => {
    const codec = new JupyterCodec('secret');
    const request = codec.request('kernel_info_request', {});
    const reply = {
      ...codec.request('kernel_info_reply', { status: 'ok' }),
      parentHeader: request.header,
      identities: [Buffer.from('topic')],
      buffers: [Buffer.from('raw')],
    };
    const decoded = codec.decode(codec.encode(reply));
    expect(decoded.header).toEqual(reply.header);
    expect(decoded.parentHeader?.msg_id).toBe(request.header.msg_id);
    expect(decoded.content).toEqual({ status: 'ok' });
    expect(decoded.identities).toEqual([Buffer.from('topic')]);
    expect(decoded.buffers).toEqual([Buffer.from('raw')]);
    // An empty parent header is no parent.
    expect(codec.decode(codec.encode(request)).parentHeader).toBeUndefined();
  });

  it('refuses a tampered part, a message signed with another key and malformed frames', () => {
    const codec = new JupyterCodec('secret');
    const frames = codec.encode(codec.request('execute_request', { code: 'print(1)' }));
    // No identities: delimiter, signature, header, parent, metadata, content.
    const tampered = [...frames];
    tampered[5] = Buffer.from(JSON.stringify({ code: 'import os; os.system("rm -rf ~")' }));
    expect(() => codec.decode(tampered)).toThrow(/bad signature/);
    const other = new JupyterCodec('other key');
    expect(() => other.decode(frames)).toSatisfy(throwsWith(isProtocolError));
    expect(() => codec.decode(frames.slice(1))).toThrow(/delimiter/);
    expect(() => codec.decode(frames.slice(0, 5))).toThrow(/too few frames/);
    expect(frames).toHaveLength(6);
    const notJson = [...frames];
    notJson[2] = Buffer.from('{');
    notJson[1] = Buffer.from(signed('secret', notJson.slice(2, 6)));
    expect(() => codec.decode(notJson)).toThrow(/not JSON/);
    const noType = [...frames];
    noType[2] = Buffer.from(JSON.stringify({ msg_id: 'x' }));
    noType[1] = Buffer.from(signed('secret', noType.slice(2, 6)));
    expect(() => codec.decode(noType)).toThrow(/malformed header/);
  });

  it('needs a key', () => {
    expect(() => new JupyterCodec('')).toThrow(/non-empty key/);
  });
});

function signed(key: string, parts: Buffer[]): string {
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
}

function throwsWith(check: (error: unknown) => boolean) {
  return (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return check(error);
    }
    return false;
  };
}
