import { describe, expect, it } from 'vitest';
import { toJsonSchema } from '../json-schema/to-json-schema.js';
import { runtimeSessionPath } from '../wire/runtime-api-routes.js';
import { runtimeApiWireSchemas } from './runtime-api-wire-schemas.js';
import { runtimeSessionFromWire } from './runtime-session.js';
import { startRuntimeRequestWireSchema } from './start-runtime-request.js';

const openHandsStartBody = {
  image: 'ghcr.io/openhands/agent-server:latest',
  command: '/usr/local/bin/openhands-agent-server --port 60000',
  working_dir: '/',
  environment: { DEBUG: '1' },
  session_id: 'agent-server-0f8fad5bd9cb469fa16570867728950e',
  run_as_user: 10001,
  fs_group: 10001,
  image_pull_policy: 'IfNotPresent',
  runtime_class: 'sysbox-runc',
  resource_factor: 2,
};

/** The dotted paths of the issues of a failed parse. */
function failedPaths(input: unknown): string[] {
  const result = startRuntimeRequestWireSchema.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map((issue) =>
    issue.code === 'unrecognized_keys' ? issue.keys.join(',') : issue.path.join('.'),
  );
}

describe('the Runtime API wire', () => {
  it('accepts the /start body the OpenHands APIRemoteWorkspace sends', () => {
    expect(startRuntimeRequestWireSchema.parse(openHandsStartBody)).toEqual(openHandsStartBody);
  });

  it('refuses bad /start bodies, naming the field', () => {
    expect(failedPaths({ ...openHandsStartBody, resource_factor: 3 })).toEqual(['resource_factor']);
    expect(failedPaths({ ...openHandsStartBody, session_id: '../x' })).toEqual(['session_id']);
    expect(failedPaths({ ...openHandsStartBody, session_id: 'a'.repeat(129) })).toEqual([
      'session_id',
    ]);
    expect(failedPaths({ ...openHandsStartBody, gpus: true })).toEqual(['gpus']);
    expect(failedPaths({ session_id: 'x' })).toEqual(['image']);
    expect(failedPaths({ ...openHandsStartBody, environment: { 'A=B': 'c' } })).toEqual([
      'environment.A=B',
    ]);
  });

  it('accepts only an absolute working_dir without NUL, at most 4096 characters', () => {
    for (const dir of ['/', '/workspace', `/${'a'.repeat(4095)}`]) {
      expect(failedPaths({ ...openHandsStartBody, working_dir: dir }), dir).toEqual([]);
    }
    for (const dir of ['', 'workspace', './x', '~/x', '/a\u0000b', `/${'a'.repeat(4096)}`]) {
      expect(failedPaths({ ...openHandsStartBody, working_dir: dir }), dir).toEqual([
        'working_dir',
      ]);
    }
    const relative = startRuntimeRequestWireSchema.safeParse({
      ...openHandsStartBody,
      working_dir: 'workspace',
    });
    expect(relative.error?.issues[0]?.message).toBe('must be an absolute path (start with /)');
  });

  it('reads a session, taking `id` for `runtime_id` as the OpenHands client does', () => {
    const session = runtimeSessionFromWire({
      id: 'abc',
      session_id: 's',
      url: 'http://127.0.0.1:1',
      session_api_key: 'k',
      status: 'running',
      pod_status: 'ready',
      restart_count: 0,
    });
    expect(session).toMatchObject({ runtimeId: 'abc', sessionId: 's', podStatus: 'ready' });
    expect(() => runtimeSessionFromWire({ session_id: 's', status: 'running' })).toThrow();
  });

  it('percent-encodes the session path', () => {
    expect(runtimeSessionPath('a.b-c_d')).toBe('/sessions/a.b-c_d');
    expect(runtimeSessionPath('a/b')).toBe('/sessions/a%2Fb');
  });

  it('gives every Runtime API model a JSON Schema', () => {
    for (const [name, { schema, io }] of Object.entries(runtimeApiWireSchemas)) {
      expect(toJsonSchema(schema, { io }), name).toHaveProperty('type');
    }
  });
});
