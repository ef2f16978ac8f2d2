import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

describe('HEAD requests', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('are answered by health, server info, downloads, the page and the docs, and by no other GET route', async () => {
    t = await startTestServer({ sessionApiKeys: ['secret'] });
    const file = path.join(t.dir, 'report.txt');
    await writeFile(file, 'twelve bytes');
    const head = (route: string) =>
      fetch(`${t!.url}${route}`, {
        method: 'HEAD',
        headers: { [SESSION_API_KEY_HEADER]: 'secret' },
      });

    for (const route of ['/health', '/alive', '/ready', '/server_info', '/', '/docs']) {
      const response = await head(route);
      expect(response.status, route).toBe(200);
      expect(await response.text(), route).toBe('');
    }
    const download = await head(`/api/file/download?path=${encodeURIComponent(file)}`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-length')).toBe('12');
    expect(await download.text()).toBe('');

    // As in OpenHands, the API's other GET routes answer GET alone.
    expect((await head('/api/bash/bash_events/search')).status).toBe(404);
    const get = await fetch(`${t.url}/api/bash/bash_events/search`, {
      headers: { [SESSION_API_KEY_HEADER]: 'secret' },
    });
    expect(get.status).toBe(200);
    await get.arrayBuffer();
  });
});
