import { existsSync } from 'node:fs';
import type { AgentServerOptions } from '@agent-workspace/agent-server';
import {
  type SessionApi,
  sessionApi,
  startTestServer,
  type TestServer,
} from '@agent-workspace/agent-server/testing';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium, or `AGENT_WORKSPACE_CHROMIUM`; never a downloaded browser. */
export const CHROMIUM_PATH = [process.env.AGENT_WORKSPACE_CHROMIUM, '/usr/bin/chromium'].find(
  (candidate): candidate is string => candidate !== undefined && existsSync(candidate),
);

/** The session key every fixture server accepts. */
export const FIXTURE_KEY = 'ui-test-session-key';

/** A real agent-server serving the page, a real Chromium, and helpers to drive both. */
export interface UiFixture extends AsyncDisposable {
  readonly server: TestServer;
  readonly browser: Browser;
  /** Base URL of the server, no trailing slash. */
  readonly url: string;
  /** The server's working directory. */
  readonly dir: string;
  /** A JSON request to the server with the fixture key; throws on a non-2xx answer. */
  readonly api: SessionApi;
  /** A new page, connected with the fixture key (the conversation list is shown). */
  connectedPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Starts an agent-server (session key {@link FIXTURE_KEY}) and Chromium. */
export async function openUiFixture(options: AgentServerOptions = {}): Promise<UiFixture> {
  const server = await startTestServer({ sessionApiKeys: [FIXTURE_KEY], ...options });
  let browser: Browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
  } catch (error) {
    await server.close();
    throw error;
  }
  const api = sessionApi(server.url, FIXTURE_KEY);
  const connectedPage = async (): Promise<Page> => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel('Session API key').fill(FIXTURE_KEY);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page
      .getByRole('table', { name: 'Conversations' })
      .or(page.getByText('No conversations yet.'))
      .waitFor();
    return page;
  };
  const close = async (): Promise<void> => {
    await browser.close();
    await server.close();
  };
  return {
    server,
    browser,
    url: server.url,
    dir: server.dir,
    api,
    connectedPage,
    close,
    [Symbol.asyncDispose]: close,
  };
}
