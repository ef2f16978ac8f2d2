import { describe, expect, it } from 'vitest';
import { execClientFrameWireSchema } from '../models/exec-stream-frame.js';
import { executeBashRequestWireSchema } from '../models/execute-bash-request.js';
import {
  checkCommandEnvironment,
  checkCommandText,
  checkEnvironmentName,
  MAX_COMMAND_BYTES,
  MAX_ENV_BYTES,
  MAX_ENV_VARIABLES,
  MAX_PATH_BYTES,
} from './command-input-limits.js';
import { environmentNameSchema } from './command-input-schemas.js';
import { utf8ByteLength } from './utf8-byte-length.js';

describe('command input limits', () => {
  it('counts UTF-8 bytes like Buffer.byteLength, surrogate pairs and lone surrogates included', () => {
    for (const text of ['', 'ascii', 'é', '€', '😀', 'a😀b', '\ud800', 'x\udc00y', '\ud83d']) {
      expect(utf8ByteLength(text), JSON.stringify(text)).toBe(Buffer.byteLength(text));
    }
  });

  it('accepts a command of exactly the limit and refuses one byte more, naming the size', () => {
    expect(checkCommandText('x'.repeat(MAX_COMMAND_BYTES))).toBeUndefined();
    expect(checkCommandText('x'.repeat(MAX_COMMAND_BYTES + 1))).toEqual({
      field: 'command',
      reason: expect.stringContaining(`is ${MAX_COMMAND_BYTES + 1} bytes`),
    });
    // Multi-byte characters count by their bytes, not their UTF-16 length.
    expect(checkCommandText('€'.repeat(Math.ceil(MAX_COMMAND_BYTES / 3) + 1))?.field).toBe(
      'command',
    );
    expect(checkCommandText('a\0b')?.reason).toContain('NUL');
  });

  it('names the variable at fault', () => {
    expect(checkCommandEnvironment({ OK: 'yes' })).toBeUndefined();
    expect(checkCommandEnvironment({ 'A=B': 'x' })?.field).toBe('env.A=B');
    expect(checkCommandEnvironment({ '': 'x' })?.field).toBe('env.');
    expect(checkCommandEnvironment({ V: 'a\0b' })).toEqual({
      field: 'env.V',
      reason: 'must not contain NUL bytes',
    });
    expect(checkCommandEnvironment({ BIG: 'x'.repeat(MAX_COMMAND_BYTES) })?.field).toBe('env.BIG');
  });

  it('has one rule for variable names, used by the checker and the name schema', () => {
    for (const name of ['', 'A=B', 'A\0B']) {
      const reason = checkEnvironmentName(name);
      expect(reason, JSON.stringify(name)).toBe(
        'is not a valid variable name (empty, or holds = or NUL)',
      );
      expect(checkCommandEnvironment({ [name]: 'x' })?.reason).toBe(reason);
      expect(environmentNameSchema.safeParse(name).error?.issues[0]?.message).toBe(reason);
    }
    expect(checkEnvironmentName('PATH')).toBeUndefined();
    expect(environmentNameSchema.safeParse('lower.case-name').success).toBe(true);
  });

  it('bounds the number and the total size of variables', () => {
    const many = Object.fromEntries(
      Array.from({ length: MAX_ENV_VARIABLES + 1 }, (_, index) => [`V${index}`, '1']),
    );
    expect(checkCommandEnvironment(many)?.field).toBe('env');
    const value = 'x'.repeat(64 * 1024);
    const large = Object.fromEntries(
      Array.from({ length: Math.ceil(MAX_ENV_BYTES / value.length) + 1 }, (_, i) => [
        `V${i}`,
        value,
      ]),
    );
    expect(checkCommandEnvironment(large)).toEqual({
      field: 'env',
      reason: expect.stringContaining(`the limit is ${MAX_ENV_BYTES}`),
    });
  });

  it('makes the wire schemas answer with the field', () => {
    const long = executeBashRequestWireSchema.safeParse({
      command: 'x'.repeat(MAX_COMMAND_BYTES + 1),
    });
    expect(long.success).toBe(false);
    expect(long.error?.issues[0]?.path).toEqual(['command']);
    const cwd = executeBashRequestWireSchema.safeParse({
      command: 'ls',
      cwd: `/${'d'.repeat(MAX_PATH_BYTES)}`,
    });
    expect(cwd.error?.issues[0]?.path).toEqual(['cwd']);
    const timeout = executeBashRequestWireSchema.safeParse({ command: 'ls', timeout: 1e12 });
    expect(timeout.error?.issues[0]?.path).toEqual(['timeout']);
    const env = execClientFrameWireSchema.safeParse({
      type: 'start',
      command: 'ls',
      env: { 'BAD=NAME': 'x' },
    });
    expect(env.error?.issues[0]?.path).toEqual(['env', 'BAD=NAME']);
  });
});
