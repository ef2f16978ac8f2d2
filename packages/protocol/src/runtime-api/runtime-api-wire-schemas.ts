import type { WireSchemaEntry } from '../json-schema/wire-schemas.js';
import { errorEnvelopeSchema } from '../models/error-envelope.js';
import { validationIssueSchema } from '../models/validation-issue.js';
import { runtimeSessionListWireSchema, runtimeSessionWireSchema } from './runtime-session.js';
import {
  runtimeSnapshotListWireSchema,
  runtimeSnapshotRemovedWireSchema,
  runtimeSnapshotWireSchema,
  takeRuntimeSnapshotRequestWireSchema,
} from './runtime-snapshot.js';
import {
  runtimeIdRequestWireSchema,
  runtimeStoppedWireSchema,
  startRuntimeRequestWireSchema,
} from './start-runtime-request.js';
import { warmPoolImageStatsWireSchema, warmPoolStatsWireSchema } from './warm-pool-stats.js';

/** Every Runtime API wire model by name, for the Runtime API server's OpenAPI components. */
export const runtimeApiWireSchemas = {
  StartRuntimeRequest: { schema: startRuntimeRequestWireSchema, io: 'input' },
  RuntimeIdRequest: { schema: runtimeIdRequestWireSchema, io: 'input' },
  RuntimeSession: { schema: runtimeSessionWireSchema, io: 'output' },
  RuntimeSessionList: { schema: runtimeSessionListWireSchema, io: 'output' },
  RuntimeStopped: { schema: runtimeStoppedWireSchema, io: 'output' },
  TakeRuntimeSnapshotRequest: { schema: takeRuntimeSnapshotRequestWireSchema, io: 'input' },
  RuntimeSnapshot: { schema: runtimeSnapshotWireSchema, io: 'output' },
  RuntimeSnapshotList: { schema: runtimeSnapshotListWireSchema, io: 'output' },
  RuntimeSnapshotRemoved: { schema: runtimeSnapshotRemovedWireSchema, io: 'output' },
  WarmPoolStats: { schema: warmPoolStatsWireSchema, io: 'output' },
  WarmPoolImageStats: { schema: warmPoolImageStatsWireSchema, io: 'output' },
  ValidationIssue: { schema: validationIssueSchema, io: 'output' },
  ErrorEnvelope: { schema: errorEnvelopeSchema, io: 'output' },
} as const satisfies Record<string, WireSchemaEntry>;
