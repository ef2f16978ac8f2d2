import { describe, expect, it } from 'vitest';
import { redactRequestUrl } from './redact-request-url.js';

describe('redactRequestUrl', () => {
  it('hides the value of session_api_key and keeps the rest', () => {
    expect(redactRequestUrl('/sockets/exec?session_api_key=s3cret&resend_all=true')).toBe(
      '/sockets/exec?session_api_key=%5Bredacted%5D&resend_all=true',
    );
  });

  it('hides every repetition', () => {
    const url = redactRequestUrl('/x?session_api_key=a&session_api_key=b');
    expect(url).not.toMatch(/=a|=b/);
  });

  it('leaves a URL without the parameter unchanged, byte for byte', () => {
    for (const url of ['/health', '/api/git/changes?path=a%20b', '/x?']) {
      expect(redactRequestUrl(url)).toBe(url);
    }
  });
});
