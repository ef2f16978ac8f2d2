import { SECRET_MASK } from '@agent-workspace/protocol';

/** Most secret names listed in the system prompt; the rest are counted. */
export const MAX_PROMPTED_SECRET_NAMES = 100;

/**
 * `systemPrompt` with the conversation's secret names appended (OpenHands tells its agent the
 * same): that a command naming one gets it as an environment variable, and that its value is
 * hidden in every output. Only names, never values; unchanged when there are none.
 */
export function withSecretNames(systemPrompt: string, names: readonly string[]): string {
  if (names.length === 0) return systemPrompt;
  const listed = names.slice(0, MAX_PROMPTED_SECRET_NAMES).map((name) => `- $${name}`);
  const more = names.length - listed.length;
  if (more > 0) listed.push(`- and ${more} more`);
  return [
    systemPrompt,
    '',
    '<SECRETS>',
    'These secrets are set as environment variables for any terminal command that names them',
    '(write `$NAME` in the command; never ask for or print their values, which are replaced by',
    `${SECRET_MASK} in every output you see):`,
    ...listed,
    '</SECRETS>',
  ].join('\n');
}
