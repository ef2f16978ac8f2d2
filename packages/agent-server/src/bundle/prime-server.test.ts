import { AGENT_SERVER_ROUTES, SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/start-test-server.js';
import { primeServer } from './prime-server.js';

const KEY = 'a-priming-key-0123456789';

describe('primeServer', () => {
  it('runs a command over the exec socket to its exit, with the key', async () => {
    await using server = await startTestServer({ sessionApiKeys: [KEY] });
    await primeServer({ url: server.url, apiKey: KEY });
    const response = await fetch(`${server.url}${AGENT_SERVER_ROUTES.searchBashEvents}`, {
      headers: { [SESSION_API_KEY_HEADER]: KEY },
    });
    const page = (await response.json()) as {
      items: { kind: string; command?: string; exit_code?: number | null }[];
    };
    expect(page.items).toContainEqual(expect.objectContaining({ command: 'echo primed' }));
    expect(page.items).toContainEqual(
      expect.objectContaining({ kind: 'BashOutput', exit_code: 0 }),
    );
  });

  it('rejects naming the exec socket when the server refuses the key', async () => {
    await using server = await startTestServer({ sessionApiKeys: [KEY] });
    await expect(
      primeServer({ url: server.url, apiKey: 'not-the-key-0123456789' }),
    ).rejects.toThrow(/^priming: \/sockets\/exec: closed \(4001\) before the exit frame$/);
  });

  it('rejects naming the step when no server answers', async () => {
    const server = await startTestServer({ sessionApiKeys: [KEY] });
    await server.close();
    await expect(primeServer({ url: server.url, apiKey: KEY })).rejects.toThrow(
      /^priming: GET \/health: fetch failed$/,
    );
  });
});
