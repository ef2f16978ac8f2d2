import { WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it } from 'vitest';
import { chromiumProxy } from './chromium-proxy.js';

describe('chromiumProxy', () => {
  it('takes no proxy when none is set, or NO_PROXY is *', () => {
    expect(chromiumProxy({ PATH: '/usr/bin' })).toEqual({ proxy: undefined });
    expect(chromiumProxy({ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'a, *' })).toEqual({
      proxy: undefined,
    });
  });

  it('takes HTTPS_PROXY, else HTTP_PROXY, lower case first, with loopback and NO_PROXY direct', () => {
    expect(
      chromiumProxy({ HTTP_PROXY: 'proxy.internal:8080', no_proxy: '.corp.example, 10.0.0.0/8' }),
    ).toEqual({
      proxy: {
        server: 'http://proxy.internal:8080',
        bypass: 'localhost,127.0.0.1,[::1],.corp.example,10.0.0.0/8',
        username: undefined,
        password: undefined,
      },
      warning: undefined,
    });
    expect(
      chromiumProxy({ https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:2' }).proxy?.server,
    ).toBe('http://a:1');
  });

  it('passes credentials apart and warns when HTTP and HTTPS proxies differ', () => {
    const choice = chromiumProxy({
      HTTPS_PROXY: 'http://us%40er:p%3Ass@egress:3128',
      HTTP_PROXY: 'http://other:3128',
    });
    expect(choice.proxy).toMatchObject({
      server: 'http://egress:3128',
      username: 'us@er',
      password: 'p:ss',
    });
    expect(choice.warning).toBe(
      'HTTPS_PROXY and HTTP_PROXY name different proxies; Chromium uses HTTPS_PROXY for every scheme',
    );
  });

  it('refuses a value that is no proxy URL, naming the variable', () => {
    for (const value of ['http://', 'ftp://proxy:21']) {
      let error: unknown;
      try {
        chromiumProxy({ HTTP_PROXY: value });
      } catch (caught) {
        error = caught;
      }
      expect(WorkspaceError.isInstance(error, 'INVALID_CONFIG'), value).toBe(true);
      expect((error as Error).message).toMatch(/^environment\.HTTP_PROXY /);
    }
  });
});
