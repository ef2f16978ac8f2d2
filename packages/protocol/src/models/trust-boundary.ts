import { z } from 'zod';

/**
 * Our addition to `/server_info`: what confines the paths an agent takes through the server.
 * `code_execution: "unconfined"` says plainly that commands, the IPython kernel and the browser
 * can read and write whatever the server's user can; `warnings` spell out each gap.
 */
export const trustBoundaryWireSchema = z.looseObject({
  /** File, git and cwd paths: `confined` to the working directory, or `unconfined`. */
  paths: z.enum(['confined', 'unconfined']),
  /** Commands, the kernel and the browser: in the command `sandbox`, or `unconfined`. */
  code_execution: z.enum(['sandbox', 'unconfined']),
  /**
   * Network of sandboxed code: the `host`'s, `none` (loopback of its own), or an `allow_list`
   * through the server's egress proxy. `host` when code execution is unconfined.
   */
  network: z.enum(['host', 'none', 'allow_list']),
  /** The allow-list's entries (`host` or `host:port`); empty unless `network` is `allow_list`. */
  allowed_hosts: z.array(z.string()),
  /** Sentences about what is not confined; empty when nothing is left open. */
  warnings: z.array(z.string()),
});

/** Wire JSON of `/server_info` `trust_boundary`. */
export type TrustBoundaryWire = z.infer<typeof trustBoundaryWireSchema>;
