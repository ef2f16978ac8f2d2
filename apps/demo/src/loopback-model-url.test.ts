import { describe, expect, it } from 'vitest';
import { isLoopbackUrl, toHostGatewayUrl } from './loopback-model-url.js';

describe('loopback model URLs', () => {
  it.each([
    'http://localhost:4000/v1',
    'http://api.localhost/v1',
    'http://127.0.0.1:4000/v1',
    'http://127.1.2.3/v1',
    'http://[::1]:8000/v1',
    'http://[::ffff:127.0.0.1]:8000/v1',
  ])('%s is loopback', (url) => {
    expect(isLoopbackUrl(url)).toBe(true);
  });

  it.each([
    'https://api.openai.com/v1',
    'http://10.0.0.5:4000/v1',
    'http://128.0.0.1/v1',
    'http://[::2]/v1',
    'http://localhost.example/v1',
  ])('%s is not loopback', (url) => {
    expect(isLoopbackUrl(url)).toBe(false);
  });

  it('moves the host to host.docker.internal, keeping scheme, port, path and trailing slash', () => {
    expect(toHostGatewayUrl('http://127.0.0.1:4000/v1')).toBe(
      'http://host.docker.internal:4000/v1',
    );
    expect(toHostGatewayUrl('https://localhost/v1/')).toBe('https://host.docker.internal/v1/');
    expect(toHostGatewayUrl('http://[::1]:8000')).toBe('http://host.docker.internal:8000');
  });
});
