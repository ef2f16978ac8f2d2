import { randomBytes, randomUUID } from 'node:crypto';
import type { SessionResources, SessionSpec } from '../backend/runtime-backend.js';
import { sessionLabels } from '../backend/session-labels.js';
import { deriveSessionKey, sessionKeyHash } from '../server/session-key.js';

/** The server secret test session keys are derived with. */
const TEST_SECRET = 'remote-api backend tests';

/** Options of {@link testSession}. */
export interface TestSessionOptions {
  namespace: string;
  image: string;
  /** @default a new `session-<uuid>` */
  sessionId?: string | undefined;
  environment?: Record<string, string> | undefined;
  resources?: SessionResources | undefined;
}

/** A session spec as the server makes one, with the clear key the client would get. */
export interface TestSession {
  spec: SessionSpec;
  /** The session key; the spec carries only its hash. */
  key: string;
}

/** A new session spec with fresh runtime id and key, labelled as the server labels one. */
export function testSession({
  namespace,
  image,
  sessionId = `session-${randomUUID()}`,
  environment = {},
  resources = {},
}: TestSessionOptions): TestSession {
  const runtimeId = randomBytes(16).toString('hex');
  const keyNonce = randomBytes(16).toString('hex');
  const key = deriveSessionKey(TEST_SECRET, sessionId, keyNonce);
  const labels = sessionLabels({
    namespace,
    sessionId,
    runtimeId,
    image,
    resourceFactor: 1,
    createdAt: new Date().toISOString(),
    keyNonce,
  });
  return {
    key,
    spec: {
      sessionId,
      runtimeId,
      image,
      environment,
      sessionKeyHash: sessionKeyHash(key),
      resourceFactor: 1,
      resources,
      labels,
    },
  };
}
