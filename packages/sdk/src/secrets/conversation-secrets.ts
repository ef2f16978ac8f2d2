import { invalidArgument, WorkspaceError } from '@agent-workspace/core';
import {
  MAX_CONVERSATION_SECRETS,
  type SecretSourceWire,
  secretsMapWireSchema,
} from '@agent-workspace/protocol';
import { fetchLookupSecret, LOOKUP_SECRET_TIMEOUT_MS } from './fetch-lookup-secret.js';
import { SecretMasker } from './secret-masker.js';
import type { SecretsUpdate } from './secret-source.js';
import { SecretStreamMasker } from './secret-stream-masker.js';

/** A secret a command needed that could not be had, and why (no value in the message). */
export interface SecretFailure {
  name: string;
  reason: string;
}

/** The variables to give one command. */
export interface CommandSecretEnv {
  /** Name to value, for the secrets the command names. */
  env: Record<string, string>;
  /** Secrets it names that could not be fetched; the command runs without them. */
  failures: SecretFailure[];
}

/** What the terminal tool asks of a conversation's secrets (`ToolContext.secrets`). */
export interface CommandSecrets {
  /** The secrets' names, sorted (the agent is told them; never their values). */
  readonly names: readonly string[];
  /** The secrets `command` names, as environment variables. */
  envFor(
    command: string,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<CommandSecretEnv>;
  /** A masker for one stream of a command's output (see `ExecuteCommandOptions.outputMasker`). */
  streamMasker(): SecretStreamMasker;
}

/** Options of {@link ConversationSecrets}. */
export interface ConversationSecretsOptions {
  /** Longest wait for one `LookupSecret`; default {@link LOOKUP_SECRET_TIMEOUT_MS}. */
  lookupTimeoutMs?: number | undefined;
}

/**
 * A conversation's secrets (OpenHands' `SecretRegistry`), held in memory only: never written to
 * disk, so a conversation reopened in a new process needs `updateSecrets` again. A command gets,
 * as environment variables, the secrets whose names appear in it (case-insensitively, as
 * OpenHands does); a `LookupSecret` is fetched then, once per run. Every value given or fetched
 * is remembered by {@link ConversationSecrets.masker} for good (a replaced value is still masked,
 * as it may be in files or history), so events can be masked before they are recorded.
 */
export class ConversationSecrets implements CommandSecrets {
  /** Masks every value these secrets ever had. */
  readonly masker = new SecretMasker();
  readonly #sources = new Map<string, SecretSourceWire>();
  readonly #lookups = new Map<string, Promise<string>>();
  readonly #lookupTimeoutMs: number;

  constructor(options: ConversationSecretsOptions = {}) {
    this.#lookupTimeoutMs = options.lookupTimeoutMs ?? LOOKUP_SECRET_TIMEOUT_MS;
  }

  /** The names of the secrets, sorted. */
  get names(): string[] {
    return [...this.#sources.keys()].sort();
  }

  /**
   * Adds or replaces secrets (the others stay). Checked whole before anything changes.
   * @throws WorkspaceError `INVALID_ARGUMENT` naming the field (`secrets.NAME…`): a name that is
   * not an environment variable name or is reserved (`RESERVED_SECRET_NAMES`, prefixes in
   * `RESERVED_SECRET_NAME_PREFIXES`), a malformed source, a value over `MAX_SECRET_VALUE_BYTES`,
   * more than `MAX_CONVERSATION_SECRETS` secrets in all; `RESOURCE_EXHAUSTED` when the masker
   * would have to remember more than `MAX_MASKED_VALUES` values. Messages never hold a value.
   */
  update(secrets: SecretsUpdate): void {
    const parsed = secretsMapWireSchema.safeParse(secrets);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = ['secrets', ...issue.path.map(String)].join('.');
      throw invalidArgument(field, `is invalid: ${issue.message}`);
    }
    const names = new Set([...this.#sources.keys(), ...Object.keys(parsed.data)]);
    if (names.size > MAX_CONVERSATION_SECRETS) {
      throw invalidArgument(
        'secrets',
        `would make ${names.size} secrets; a conversation holds at most ${MAX_CONVERSATION_SECRETS}`,
      );
    }
    const values = Object.values(parsed.data).flatMap((source) =>
      source.kind === 'StaticSecret' && source.value !== null ? [source.value] : [],
    );
    if (!this.masker.canAddAll(values)) throw tooManyValues();
    for (const value of values) this.masker.add(value);
    for (const [name, source] of Object.entries(parsed.data)) {
      this.#sources.set(name, source);
      this.#lookups.delete(name);
    }
  }

  /**
   * An independent registry with the same secrets and the same remembered values (for a fork:
   * what the source masks, the fork masks too); `LookupSecret`s are fetched again when needed.
   */
  copy(): ConversationSecrets {
    const copy = new ConversationSecrets({ lookupTimeoutMs: this.#lookupTimeoutMs });
    for (const value of this.masker.values()) copy.masker.add(value);
    for (const [name, source] of this.#sources) copy.#sources.set(name, source);
    return copy;
  }

  /** A new run: `LookupSecret`s are fetched again when next needed. */
  beginRun(): void {
    this.#lookups.clear();
  }

  /**
   * The secrets `command` names (a secret's name appearing in it, any case) with their values;
   * a `LookupSecret` is fetched at its first use in a run. A secret without a value (`null`, an
   * empty answer) is left out; one whose lookup fails is listed in `failures`.
   */
  async envFor(
    command: string,
    { signal }: { signal?: AbortSignal | undefined } = {},
  ): Promise<CommandSecretEnv> {
    const lower = command.toLowerCase();
    const env: Record<string, string> = {};
    const failures: SecretFailure[] = [];
    for (const [name, source] of this.#sources) {
      if (!lower.includes(name.toLowerCase())) continue;
      try {
        const value = await this.#valueOf(name, source, signal);
        if (value !== null && value !== '') env[name] = value;
      } catch (error) {
        if (signal?.aborted) throw error;
        failures.push({ name, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    return { env, failures };
  }

  /** `text` with every value (and simple encodings of it) masked. */
  mask(text: string): string {
    return this.masker.mask(text);
  }

  /**
   * A masker for one stream of text chunks (streamed output or model deltas): a value split
   * across chunks is masked too. `flush()` it when the stream ends.
   */
  streamMasker(): SecretStreamMasker {
    return new SecretStreamMasker(this.masker);
  }

  /** A copy of a JSON-like `event` with every string in it masked. */
  maskEvent<T>(event: T): T {
    return this.masker.maskDeep(event);
  }

  async #valueOf(
    name: string,
    source: SecretSourceWire,
    signal: AbortSignal | undefined,
  ): Promise<string | null> {
    if (source.kind === 'StaticSecret') return source.value;
    let lookup = this.#lookups.get(name);
    if (lookup === undefined) {
      lookup = fetchLookupSecret({
        name,
        url: source.url,
        headers: source.headers,
        timeoutMs: this.#lookupTimeoutMs,
        signal,
      }).then((value) => {
        if (!this.masker.canAdd(value)) throw tooManyValues();
        // Remembered before anyone can use it.
        this.masker.add(value);
        return value;
      });
      this.#lookups.set(name, lookup);
      // A failed lookup is tried again at the next command.
      lookup.catch(() => {
        if (this.#lookups.get(name) === lookup) this.#lookups.delete(name);
      });
    }
    return lookup;
  }
}

function tooManyValues(): WorkspaceError {
  return new WorkspaceError({
    code: 'RESOURCE_EXHAUSTED',
    message:
      'the conversation has masked too many distinct secret values; start a new conversation',
    details: { field: 'secrets' },
  });
}
