import { describe, expect, it } from 'vitest';
import { MAX_PROMPTED_SECRET_NAMES, withSecretNames } from './secrets-prompt.js';

describe('withSecretNames', () => {
  it('leaves the prompt alone without secrets', () => {
    expect(withSecretNames('You are an agent.', [])).toBe('You are an agent.');
  });

  it('lists the names after the prompt, and counts those past the limit', () => {
    const names = Array.from({ length: MAX_PROMPTED_SECRET_NAMES + 2 }, (_, i) => `TOKEN_${i}`);
    const prompt = withSecretNames('You are an agent.', names);
    expect(prompt.startsWith('You are an agent.\n\n<SECRETS>\n')).toBe(true);
    expect(prompt).toContain('- $TOKEN_0\n');
    expect(prompt).toContain(`- $TOKEN_${MAX_PROMPTED_SECRET_NAMES - 1}\n`);
    expect(prompt).not.toContain(`$TOKEN_${MAX_PROMPTED_SECRET_NAMES}\n`);
    expect(prompt).toContain('- and 2 more\n</SECRETS>');
  });
});
