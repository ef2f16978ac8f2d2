import { z } from 'zod';
import { utf8ByteLength } from '../limits/utf8-byte-length.js';

/**
 * What a secret's value is replaced with wherever it would be shown (OpenHands'
 * `SecretRegistry.mask_secrets_in_output` string).
 */
export const SECRET_MASK = '<secret-hidden>';

/** Most secrets one conversation holds (an update that would pass it is refused whole). */
export const MAX_CONVERSATION_SECRETS = 100;
/** Longest secret name (an environment variable name). */
export const MAX_SECRET_NAME_CHARS = 128;
/**
 * Largest secret value, in UTF-8 bytes, given or fetched by a `LookupSecret`. Secrets travel as
 * environment variables, which Linux caps at 128 KiB each and which share the exec limit.
 */
export const MAX_SECRET_VALUE_BYTES = 16 * 1024;
/** Longest `description` of a secret. */
export const MAX_SECRET_DESCRIPTION_CHARS = 1000;
/** Longest `url` of a `LookupSecret`. */
export const MAX_LOOKUP_SECRET_URL_CHARS = 2048;
/** Most `headers` of a `LookupSecret`. */
export const MAX_LOOKUP_SECRET_HEADERS = 32;
/** Longest header name of a `LookupSecret`. */
export const MAX_LOOKUP_SECRET_HEADER_NAME_CHARS = 256;
/** Longest header value of a `LookupSecret`. */
export const MAX_LOOKUP_SECRET_HEADER_VALUE_CHARS = 8192;
/**
 * Values shorter than this (in characters) are not masked: replacing a few common characters
 * everywhere would garble output without protecting anything. They are still given to commands.
 */
export const MIN_MASKED_SECRET_CHARS = 8;

/** A secret name: an environment variable name (`[A-Za-z_][A-Za-z0-9_]*`). */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Names a secret may not take (compared case-insensitively): variables the shell, the dynamic
 * loader, language runtimes or the server itself read, which a secret would hijack.
 */
export const RESERVED_SECRET_NAMES: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'SHELL',
  'USER',
  'LOGNAME',
  'PWD',
  'OLDPWD',
  'IFS',
  'ENV',
  'BASH_ENV',
  'CDPATH',
  'GLOBIGNORE',
  'SHELLOPTS',
  'BASHOPTS',
  'PS1',
  'PS2',
  'PS3',
  'PS4',
  'PROMPT_COMMAND',
  'TMPDIR',
  'TERM',
  'LANG',
  'NODE_OPTIONS',
  'NODE_PATH',
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'PYTHONHOME',
  'PERL5OPT',
  'PERL5LIB',
  'RUBYOPT',
  'JAVA_TOOL_OPTIONS',
  'GIT_SSH_COMMAND',
  'SESSION_API_KEY',
]);

/**
 * Name prefixes a secret may not start with (case-insensitively): the dynamic loader's (`LD_`,
 * `DYLD_`), bash's own (`BASH_`, exported functions `BASH_FUNC_`), OpenHands' server settings
 * (`OH_`), and the terminal tool's wrapper variables (`AW_`, `__AW`).
 */
export const RESERVED_SECRET_NAME_PREFIXES: readonly string[] = Object.freeze([
  'LD_',
  'DYLD_',
  'BASH_',
  'OH_',
  'AW_',
  '__AW',
]);

/** Why `name` cannot name a secret, or `undefined` when it can. */
export function secretNameProblem(name: string): string | undefined {
  if (name.length > MAX_SECRET_NAME_CHARS) {
    return `must have at most ${MAX_SECRET_NAME_CHARS} characters`;
  }
  if (!SECRET_NAME_PATTERN.test(name)) {
    return 'must be an environment variable name: letters, digits and _, not starting with a digit';
  }
  const upper = name.toUpperCase();
  if (RESERVED_SECRET_NAMES.includes(upper)) {
    return `is reserved (${upper} is a variable the shell, a runtime or the server relies on)`;
  }
  const prefix = RESERVED_SECRET_NAME_PREFIXES.find((reserved) => upper.startsWith(reserved));
  if (prefix !== undefined) return `is reserved (names starting with ${prefix} are)`;
  return undefined;
}

const valueSchema = z.string().refine((value) => utf8ByteLength(value) <= MAX_SECRET_VALUE_BYTES, {
  message: `String should have at most ${MAX_SECRET_VALUE_BYTES} bytes`,
});
const descriptionSchema = z.string().max(MAX_SECRET_DESCRIPTION_CHARS).nullish();

/** OpenHands' `StaticSecret`: a value given with the request (`null`: none, not exported). */
export const staticSecretWireSchema = z.strictObject({
  kind: z.literal('StaticSecret'),
  value: valueSchema.nullable().default(null),
  description: descriptionSchema,
});

/** OpenHands' `LookupSecret`: a value fetched with `GET url` (with `headers`) when first needed. */
export const lookupSecretWireSchema = z.strictObject({
  kind: z.literal('LookupSecret'),
  url: z
    .string()
    .max(MAX_LOOKUP_SECRET_URL_CHARS)
    .refine(isHttpUrl, { message: 'URL should be an absolute http or https URL' }),
  headers: z
    .record(
      z
        .string()
        .min(1)
        .max(MAX_LOOKUP_SECRET_HEADER_NAME_CHARS)
        .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'Header name should be an HTTP token'),
      z
        .string()
        .max(MAX_LOOKUP_SECRET_HEADER_VALUE_CHARS)
        .regex(/^[^\r\n\0]*$/, 'Header value should hold no CR, LF or NUL'),
    )
    .refine((headers) => Object.keys(headers).length <= MAX_LOOKUP_SECRET_HEADERS, {
      message: `Dictionary should have at most ${MAX_LOOKUP_SECRET_HEADERS} items`,
    })
    .default({}),
  description: descriptionSchema,
});

/** Wire JSON of a `StaticSecret`. */
export type StaticSecretWire = z.infer<typeof staticSecretWireSchema>;
/** Wire JSON of a `LookupSecret`. */
export type LookupSecretWire = z.infer<typeof lookupSecretWireSchema>;
/** Wire JSON of a secret source (`kind` tells which). */
export type SecretSourceWire = StaticSecretWire | LookupSecretWire;

/**
 * One secret as a request may give it, normalised to a {@link SecretSourceWire} as OpenHands'
 * `UpdateSecretsRequest` does: a plain string or `{"value": …}` is a `StaticSecret`; an object
 * with `kind` is that source. OpenHands' Python SDK may send the long discriminator spelling
 * (`openhands__sdk__secret__secrets__StaticSecret-Input__1`): it is read as the short one.
 */
export const secretSourceInputWireSchema = z.preprocess(
  normaliseSecretInput,
  z.discriminatedUnion('kind', [staticSecretWireSchema, lookupSecretWireSchema]),
);

/** The secrets of a request: names (see {@link secretNameProblem}) to sources. */
export const secretsMapWireSchema = z
  .record(z.string(), secretSourceInputWireSchema)
  .superRefine((secrets, context) => {
    const names = Object.keys(secrets);
    if (names.length > MAX_CONVERSATION_SECRETS) {
      context.addIssue({
        code: 'custom',
        message: `Dictionary should have at most ${MAX_CONVERSATION_SECRETS} items`,
      });
    }
    for (const name of names) {
      const problem = secretNameProblem(name);
      if (problem !== undefined) {
        context.addIssue({
          code: 'custom',
          path: [name],
          message: `Secret name ${JSON.stringify(name.slice(0, MAX_SECRET_NAME_CHARS))} ${problem}`,
        });
      }
    }
  });

/** Wire shape of OpenHands' `UpdateSecretsRequest` (`POST /api/conversations/{id}/secrets`). */
export const updateSecretsRequestWireSchema = z.object({ secrets: secretsMapWireSchema });

/** Wire JSON of an update-secrets request, normalised. */
export type UpdateSecretsRequestWire = z.infer<typeof updateSecretsRequestWireSchema>;

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function normaliseSecretInput(input: unknown): unknown {
  if (typeof input === 'string') return { kind: 'StaticSecret', value: input };
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const record = input as Record<string, unknown>;
  if (record.kind === undefined) {
    return 'url' in record
      ? { ...record, kind: 'LookupSecret' }
      : { ...record, kind: 'StaticSecret' };
  }
  if (typeof record.kind === 'string') {
    const long = /^openhands__sdk__secret__secrets__(StaticSecret|LookupSecret)-\w+__\d+$/.exec(
      record.kind,
    );
    if (long !== null) return { ...record, kind: long[1] };
  }
  return input;
}
