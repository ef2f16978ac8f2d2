import { describe, expect, it } from 'vitest';
import { isAllowedOrigin } from './is-allowed-origin.js';

describe('isAllowedOrigin', () => {
  it('allows loopback origins on any scheme and port', () => {
    for (const origin of [
      'http://localhost',
      'http://localhost:3000',
      'https://127.0.0.1:8443',
      'http://[::1]:5173',
    ]) {
      expect(isAllowedOrigin(origin, []), origin).toBe(true);
    }
  });

  it('allows listed origins exactly, `*` and the Docker host', () => {
    expect(isAllowedOrigin('https://app.example.com', ['https://app.example.com'])).toBe(true);
    expect(isAllowedOrigin('https://app.example.com:444', ['https://app.example.com'])).toBe(false);
    expect(isAllowedOrigin('https://anything.example', ['*'])).toBe(true);
    expect(isAllowedOrigin('http://192.168.1.5:9000', [], '192.168.1.5')).toBe(true);
    expect(isAllowedOrigin('http://192.168.1.6:9000', [], '192.168.1.5')).toBe(false);
  });

  it('rejects look-alikes and unparsable origins', () => {
    for (const origin of ['http://localhost.evil.com', 'http://127.0.0.1.nip.io', 'null', '']) {
      expect(isAllowedOrigin(origin, [], ''), origin).toBe(false);
    }
  });
});
