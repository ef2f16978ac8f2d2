import { z } from 'zod';

/** Lifecycle states of a runtime plugin. */
export const runtimePluginStateSchema = z.enum(['starting', 'ready', 'failed', 'closed']);

/** A runtime plugin's state: `starting` → `ready` or `failed`; `closed` at shutdown. */
export type RuntimePluginState = z.infer<typeof runtimePluginStateSchema>;

/** How one runtime plugin is doing, as `/server_info` `plugins[]` lists it. */
export const runtimePluginStatusWireSchema = z.looseObject({
  name: z.string(),
  state: runtimePluginStateSchema,
  /** Why it failed (a missing requirement says how to install it); `null` otherwise. */
  error: z.string().nullable(),
  /** The OpenHands actions it runs, e.g. `browse`, `run_ipython`. */
  actions: z.array(z.string()),
  /** Capabilities it announces while ready. */
  capabilities: z.array(z.string()),
  /** Result of its last health check; `null` before it is ready. */
  healthy: z.boolean().nullable(),
  /** Resident memory of its processes in bytes, when it has any. */
  memory_bytes: z.number().int().nonnegative().nullable(),
});

/** Wire JSON of a runtime plugin's status. */
export type RuntimePluginStatusWire = z.infer<typeof runtimePluginStatusWireSchema>;

/** One process tree the memory monitor watches: a command, a kernel, a browser. */
export const processTreeMemoryWireSchema = z.looseObject({
  label: z.string(),
  pid: z.number().int(),
  rss_bytes: z.number().int().nonnegative(),
});

/**
 * `/server_info` `resources`: resident memory of the server process and of the process trees
 * it watches, and the per-tree limit (`null` when none is set).
 */
export const serverResourcesWireSchema = z.looseObject({
  server_rss_bytes: z.number().int().nonnegative(),
  process_trees: z.array(processTreeMemoryWireSchema),
  process_tree_memory_limit_bytes: z.number().int().positive().nullable(),
});

/** Wire JSON of `/server_info` `resources`. */
export type ServerResourcesWire = z.infer<typeof serverResourcesWireSchema>;
