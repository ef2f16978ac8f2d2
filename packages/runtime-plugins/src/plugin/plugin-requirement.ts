/**
 * Something a runtime plugin needs before it can start, checked by the host first; `install`
 * tells a person how to get it when it is missing.
 */
export type PluginRequirement =
  | {
      kind: 'binary';
      /** What is needed, for messages, e.g. `Chromium`. */
      name: string;
      /** Absolute paths or names looked up on `PATH`, tried in order; the first found is used. */
      candidates: readonly string[];
      install: string;
    }
  | {
      kind: 'module';
      /** A Node package the plugin imports, e.g. `playwright-core`. */
      name: string;
      install: string;
    }
  | {
      kind: 'env';
      /** An environment variable that must be set. */
      name: string;
      install: string;
    }
  | {
      kind: 'check';
      name: string;
      /** Resolves to why the requirement is unmet, or `undefined` when it is met. */
      check: (signal: AbortSignal) => Promise<string | undefined>;
      install: string;
    };
