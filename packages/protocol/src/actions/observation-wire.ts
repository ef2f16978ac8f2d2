import { z } from 'zod';

/**
 * An OpenHands observation as `event_to_dict` writes it: `observation` (its type), `content` (the
 * text an agent reads) and `extras` (the type's other fields). Lenient, as every observation
 * parses with it; the typed schemas below pin each type's extras.
 */
export const observationWireSchema = z.looseObject({
  observation: z.string(),
  content: z.string(),
  extras: z.record(z.string(), z.unknown()).default({}),
  message: z.string().optional(),
  success: z.boolean().optional(),
});

/** Wire JSON of any observation. */
export type ObservationWire = z.infer<typeof observationWireSchema>;

/** `metadata` of a command observation (OpenHands' `CmdOutputMetadata`). */
export const cmdOutputMetadataWireSchema = z.looseObject({
  exit_code: z.number().int(),
  pid: z.number().int(),
  username: z.string().nullable(),
  hostname: z.string().nullable(),
  working_dir: z.string().nullable(),
  py_interpreter_path: z.string().nullable(),
  prefix: z.string(),
  suffix: z.string(),
});

/** `run` observation (`CmdOutputObservation`): the command's output with its exit code. */
export const cmdOutputObservationWireSchema = observationWireSchema.extend({
  observation: z.literal('run'),
  extras: z.looseObject({
    command: z.string(),
    metadata: cmdOutputMetadataWireSchema,
    hidden: z.boolean(),
  }),
  success: z.boolean(),
});

/** `read` observation (`FileReadObservation`). */
export const fileReadObservationWireSchema = observationWireSchema.extend({
  observation: z.literal('read'),
  extras: z.looseObject({ path: z.string(), impl_source: z.enum(['default', 'oh_aci']) }),
});

/** `write` observation (`FileWriteObservation`). */
export const fileWriteObservationWireSchema = observationWireSchema.extend({
  observation: z.literal('write'),
  extras: z.looseObject({ path: z.string() }),
});

/** `edit` observation (`FileEditObservation`); `diff` is a unified diff of the change. */
export const fileEditObservationWireSchema = observationWireSchema.extend({
  observation: z.literal('edit'),
  extras: z.looseObject({
    path: z.string(),
    prev_exist: z.boolean(),
    old_content: z.string().nullable(),
    new_content: z.string().nullable(),
    impl_source: z.literal('oh_aci'),
    diff: z.string().nullable(),
  }),
});

/** `run_ipython` observation (`IPythonRunCellObservation`); images come as `data:` URLs. */
export const ipythonRunCellObservationWireSchema = observationWireSchema.extend({
  observation: z.literal('run_ipython'),
  extras: z.looseObject({ code: z.string(), image_urls: z.array(z.string()).nullable() }),
});

/** One node of a page's accessibility tree, in document order; `depth` 0 is the root. */
export const axNodeWireSchema = z.looseObject({
  /** Stable element id for `click` / `fill`; `null` for nodes that cannot be acted on. */
  bid: z.string().nullable(),
  role: z.string(),
  name: z.string(),
  depth: z.number().int().nonnegative(),
  /** Current value of form fields. */
  value: z.string().nullable().default(null),
  /** States such as `checked`, `disabled`, `focused`, `expanded`, `level`. */
  properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
});

/** Wire JSON of one accessibility tree node. */
export type AxNodeWire = z.infer<typeof axNodeWireSchema>;

/** A file the page downloaded, saved into the workspace. */
export const browserDownloadWireSchema = z.looseObject({
  /** Absolute path in the workspace. */
  path: z.string(),
  url: z.string(),
  size: z.number().int().nonnegative(),
});

/**
 * `browse` observation (`BrowserOutputObservation`, for `browse` and `browse_interactive`):
 * `content` is the page as Markdown text, `screenshot` a PNG `data:` URL, `axtree_object` the
 * accessibility tree with element ids, `error` true when the last action failed. `title` and
 * `downloads` are our additions, top-level so that OpenHands' deserializer (which passes
 * `extras` to its dataclass) ignores them.
 */
export const browserOutputObservationWireSchema = observationWireSchema.extend({
  observation: z.literal('browse'),
  extras: z.looseObject({
    url: z.string(),
    trigger_by_action: z.string(),
    screenshot: z.string(),
    screenshot_path: z.string().nullable(),
    set_of_marks: z.string(),
    error: z.boolean(),
    goal_image_urls: z.array(z.string()),
    open_pages_urls: z.array(z.string()),
    active_page_index: z.number().int(),
    dom_object: z.record(z.string(), z.unknown()),
    axtree_object: z.looseObject({ nodes: z.array(axNodeWireSchema) }),
    extra_element_properties: z.record(z.string(), z.unknown()),
    last_browser_action: z.string(),
    last_browser_action_error: z.string(),
    focused_element_bid: z.string(),
  }),
  title: z.string(),
  downloads: z.array(browserDownloadWireSchema),
});

/** `error` observation (`ErrorObservation`): what went wrong, for the agent to read. */
export const errorObservationWireSchema = observationWireSchema.extend({
  observation: z.literal('error'),
  extras: z.looseObject({ error_id: z.string() }),
});

/** Wire JSON of a `run` observation. */
export type CmdOutputObservationWire = z.infer<typeof cmdOutputObservationWireSchema>;
/** Wire JSON of a `read` observation. */
export type FileReadObservationWire = z.infer<typeof fileReadObservationWireSchema>;
/** Wire JSON of a `write` observation. */
export type FileWriteObservationWire = z.infer<typeof fileWriteObservationWireSchema>;
/** Wire JSON of an `edit` observation. */
export type FileEditObservationWire = z.infer<typeof fileEditObservationWireSchema>;
/** Wire JSON of a `run_ipython` observation. */
export type IPythonRunCellObservationWire = z.infer<typeof ipythonRunCellObservationWireSchema>;
/** Wire JSON of a `browse` observation. */
export type BrowserOutputObservationWire = z.infer<typeof browserOutputObservationWireSchema>;
/** Wire JSON of an `error` observation. */
export type ErrorObservationWire = z.infer<typeof errorObservationWireSchema>;

/** An `error` observation with `content` and an `error_id` (a stable code such as `PLUGIN_DISABLED`). */
export function errorObservation(content: string, errorId: string): ErrorObservationWire {
  return { observation: 'error', content, extras: { error_id: errorId }, message: content };
}
