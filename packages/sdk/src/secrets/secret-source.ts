/** A secret whose value is given (OpenHands' `StaticSecret`); `null`: no value, not exported. */
export interface StaticSecret {
  kind: 'StaticSecret';
  value: string | null;
  /** What the secret is, for people (never shown to the model here). */
  description?: string | null | undefined;
}

/**
 * A secret fetched with `GET url` (and `headers`) when a command first needs it in a run
 * (OpenHands' `LookupSecret`); the body is the value.
 */
export interface LookupSecret {
  kind: 'LookupSecret';
  url: string;
  headers?: Record<string, string> | undefined;
  description?: string | null | undefined;
}

/** Where a secret's value comes from. */
export type SecretSource = StaticSecret | LookupSecret;

/**
 * One secret as `updateSecrets` takes it (OpenHands' `UpdateSecretsRequest`): a plain string or
 * `{ value }` is a `StaticSecret`; or a {@link SecretSource}. The same JSON on the wire.
 */
export type SecretInput =
  | string
  | { value: string | null; description?: string | null }
  | SecretSource;

/** Secrets by name (an environment variable name, not a reserved one). */
export type SecretsUpdate = Readonly<Record<string, SecretInput>>;
