import { randomBytes } from 'node:crypto';
import { SECRET_MASK } from '@agent-workspace/protocol';
import { ConversationSecrets } from '@agent-workspace/sdk';
import { type Comparison, compare } from './bench-harness.js';

/** Secrets in the conversation and bytes of command output masked per sample. */
const SECRETS = 20;
const OUTPUT_BYTES = 1024 * 1024;

/**
 * What masking costs on the path every observation takes: 1 MiB of command output (log-like
 * lines, two secrets and the base64 of a third inside) masked by a conversation holding 20
 * secrets, against `replaceAll` of each literal form the masker looks for (the values and their
 * JSON, URL, hex and base64 forms: the same needles, one native pass each; blind to base64
 * wrapped over lines, which the masker also finds). Both outputs are checked.
 */
export async function benchSecretMasking(): Promise<Comparison[]> {
  const values = Array.from({ length: SECRETS }, () => randomBytes(18).toString('base64url'));
  const secrets = new ConversationSecrets();
  secrets.update(Object.fromEntries(values.map((value, index) => [`TOKEN_${index}`, value])));
  const line = 'GET /api/items?page=3 200 12ms user=alice region=eu-west-1 cache=miss\n';
  const filler = line.repeat(Math.ceil(OUTPUT_BYTES / line.length)).slice(0, OUTPUT_BYTES);
  const half = OUTPUT_BYTES / 2;
  const output = [
    filler.slice(0, half),
    `token=${values[3]}\n`,
    `auth: ${Buffer.from(values[7]!).toString('base64')}\n`,
    filler.slice(half),
    `export TOKEN_11=${values[11]}\n`,
  ].join('');
  const forms = secrets.masker.forms();
  const naive = (text: string) =>
    forms.reduce((masked, form) => masked.replaceAll(form, SECRET_MASK), text);
  const check = (masked: string) => {
    for (const value of [values[3]!, values[11]!]) {
      if (masked.includes(value)) throw new Error('a secret was left unmasked');
    }
    return masked;
  };
  if (secrets.mask(output).includes(Buffer.from(values[7]!).toString('base64'))) {
    throw new Error('the base64 of a secret was left unmasked');
  }
  return [
    await compare({
      scenario: `mask 1 MiB of command output, ${SECRETS} secrets (lower is better)`,
      iterations: 40,
      baseline: {
        name: `replaceAll of each literal form (${forms.length} passes)`,
        run: async () => check(naive(output)),
      },
      candidate: {
        name: 'ConversationSecrets.mask (one pass over the text, one over it unwrapped)',
        run: async () => check(secrets.mask(output)),
      },
      target: 'ratio ≤ 1.5',
    }),
  ];
}
