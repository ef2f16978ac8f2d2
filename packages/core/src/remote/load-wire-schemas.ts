/** The protocol's main entry: every wire schema and converter. */
export type WireSchemas = typeof import('@agent-workspace/protocol');

let wireSchemas: Promise<WireSchemas> | undefined;

/**
 * The protocol's wire schemas and converters, loaded on first call and shared after. The main
 * entry builds every zod schema when imported (some 17 MB and 50 ms), so the remote modules
 * import their constants from `@agent-workspace/protocol/constants` and await this only on the
 * path that parses a body or frame: a file transfer that succeeds never loads zod.
 */
export function loadWireSchemas(): Promise<WireSchemas> {
  wireSchemas ??= import('@agent-workspace/protocol');
  return wireSchemas;
}
