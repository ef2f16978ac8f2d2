import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type SessionApi, sessionApi } from '@agent-workspace/agent-server/testing';
import { Agent, ScriptedLLM } from '@agent-workspace/sdk';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { startAgentServerProcess } from './agent-server-process.js';
import {
  bestOf,
  type Comparison,
  comparisonOf,
  roundsComparison,
  summarise,
} from './bench-harness.js';

const KEY = 'bench-ui-session-key';
const UI_DIST = fileURLToPath(new URL('../packages/ui/dist/', import.meta.url));
const CHROMIUM = process.env.AGENT_WORKSPACE_CHROMIUM ?? '/usr/bin/chromium';
/** The page's budget: all of dist, gzip. */
const BUDGET_BYTES = 250 * 1024;
const MANY_EVENTS = 5000;
/** A frame longer than this is a visible stall. */
const LONG_FRAME_MS = 50;

/**
 * The web page (`@agent-workspace/ui`) in Debian's Chromium against a real agent-server (its own
 * process) with scripted conversations, each number next to a bare page measured in the same run
 * and browser: a page with no framework that opens the raw events socket, authenticates with the
 * first frame and renders each event into a plain div. Rows: the built assets (gzip) against the
 * 250 KB budget; connect → first event on screen; a posted message → on screen; scrolling 5,000
 * events (worst frame, frames over 50 ms) and the JS heap and DOM nodes they take.
 */
export async function benchUi(): Promise<Comparison[]> {
  const results = [await assetSizes()];
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set AGENT_WORKSPACE_CHROMIUM)`,
    );
  }
  const workingDir = await mkdtemp(path.join(tmpdir(), 'bench-ui-'));
  try {
    await using server = await startAgentServerProcess([
      '--working-dir',
      workingDir,
      '--session-api-key',
      KEY,
    ]);
    // Served from loopback too: Chromium lets only a local page open a socket to loopback.
    await using bare = await serveBarePage(barePage(server.url));
    const bench = new UiBench(server.url, workingDir, bare.url);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      results.push(await bench.connectToFirstEvent(browser));
      results.push(await bench.eventLatency(browser));
      results.push(...(await bench.manyEvents(browser)));
    } finally {
      await browser.close();
    }
  } finally {
    await rm(workingDir, { recursive: true, force: true });
  }
  return results;
}

/** Serves `html` at `/` on 127.0.0.1. */
async function serveBarePage(html: string): Promise<{ url: string } & AsyncDisposable> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    [Symbol.asyncDispose]: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** (a) Every file of packages/ui/dist, gzip, against the budget. */
async function assetSizes(): Promise<Comparison> {
  if (!existsSync(path.join(UI_DIST, 'index.html'))) {
    throw new Error('packages/ui/dist is not built: pnpm --filter @agent-workspace/ui build');
  }
  const files = (await readdir(UI_DIST, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(UI_DIST, path.join(entry.parentPath, entry.name)));
  const sizes = await Promise.all(
    files.map(async (file) => {
      const bytes = await readFile(path.join(UI_DIST, file));
      return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
    }),
  );
  sizes.sort((a, b) => b.gzip - a.gzip);
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  const total = sizes.reduce((sum, size) => sum + size.gzip, 0);
  const raw = sizes.reduce((sum, size) => sum + size.raw, 0);
  return comparisonOf(
    'web page assets, gzip -9, KB (lower is better)',
    summarise('budget', [BUDGET_BYTES / 1024], 'KB'),
    summarise(`packages/ui/dist, ${files.length} files`, [total / 1024], 'KB'),
    {
      target: 'ratio ≤ 1 (≤ 250 KB gzip in all)',
      notes: `${kb(raw)} KB raw; ${sizes.map((size) => `${size.file} ${kb(size.gzip)} KB (${kb(size.raw)} raw)`).join(', ')}`,
    },
  );
}

/**
 * The bare page of every baseline, for the agent-server at `server`: a Connect button that opens
 * the raw events socket (`resend_mode=all`), sends the `auth` frame and appends each event (not
 * the state updates) to a scrolling div, as `<div data-event-id>` with the message's text.
 */
const barePage = (server: string) => `<!doctype html><meta charset="utf-8"><title>bare</title>
<style>body{margin:0;font:14px sans-serif}#log{height:100vh;overflow-y:auto}#log div{padding:4px 8px;border-bottom:1px solid #ddd;white-space:pre-wrap}</style>
<input id="key" type="password" aria-label="Session API key"><button id="connect">Connect</button>
<div id="log" role="log" aria-label="Events"></div>
<script>
document.getElementById('connect').addEventListener('click', () => {
  const id = decodeURIComponent(location.hash.replace('#/conversations/', ''));
  const socket = new WebSocket(${JSON.stringify(server.replace(/^http/, 'ws'))} + '/sockets/events/' + encodeURIComponent(id) + '?resend_mode=all');
  socket.onopen = () => socket.send(JSON.stringify({ type: 'auth', session_api_key: document.getElementById('key').value }));
  const log = document.getElementById('log');
  socket.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.kind === 'ConversationStateUpdateEvent') return;
    const row = document.createElement('div');
    row.dataset.eventId = event.id;
    const parts = event.llm_message?.content ?? [];
    row.textContent = parts.map((part) => part.text ?? '').join('') || event.kind;
    log.append(row);
  };
});
</script>`;

/**
 * Injected before any script of either page: the time of the click on Connect, when the first
 * visible `[data-event-id]` is painted, and `watch(text)`: when an element showing `text` is.
 * "Painted" is the next animation frame after the DOM change, the frame that draws it.
 */
const PROBE = `(() => {
  const probe = { clickAt: undefined, firstEventAt: undefined, want: undefined, seenAt: undefined };
  window.__probe = probe;
  probe.watch = (text) => { probe.want = text; probe.seenAt = undefined; };
  document.addEventListener('click', (event) => {
    if (event.target instanceof Element && event.target.closest('button')?.textContent.trim() === 'Connect') probe.clickAt = event.timeStamp;
  }, true);
  const painted = (set) => requestAnimationFrame(() => set(performance.now()));
  const shows = (node, text) => (node.nodeType === 3 ? node.parentNode : node)?.textContent?.includes(text);
  new MutationObserver((records) => {
    if (probe.clickAt !== undefined && probe.firstEventAt === undefined) {
      const visible = [...document.querySelectorAll('[data-event-id]')].some((element) => element.checkVisibility() && element.getBoundingClientRect().height > 0);
      if (visible) { probe.firstEventAt = -1; painted((at) => { probe.firstEventAt = at; }); }
    }
    const want = probe.want;
    if (want !== undefined && records.some((record) => shows(record.target, want) || [...record.addedNodes].some((node) => shows(node, want)))) {
      probe.want = undefined;
      painted((at) => { probe.seenAt = performance.timeOrigin + at; });
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();`;

type Side = 'bare' | 'ui';

/**
 * Resolves once `expression` is true in `page`, polled from here: the page's CSP forbids the
 * string evaluation of `waitForFunction`. The probe timestamps in the page, so polling adds nothing.
 */
async function until(page: Page, expression: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The bench's conversations and pages on one agent-server. */
class UiBench {
  /** A JSON request with the session key; throws on a non-2xx answer. */
  readonly api: SessionApi;

  constructor(
    readonly url: string,
    readonly workingDir: string,
    /** Where the bare page is served, on loopback as the agent-server. */
    readonly barePageUrl: string,
  ) {
    this.api = sessionApi(url, KEY);
  }

  /** A conversation whose scripted agent runs `echo` and finishes; resolves once it has. */
  async finishedConversation(): Promise<string> {
    const agent = new Agent({
      llm: new ScriptedLLM({
        script: [
          {
            text: 'Checking.',
            toolCalls: [{ name: 'terminal', arguments: { command: 'echo ok' } }],
          },
          { toolCalls: [{ name: 'finish', arguments: { message: 'Done.' } }] },
        ],
      }),
      tools: ['TerminalTool'],
    });
    const { id } = await this.api<{ id: string }>('POST', '/api/conversations', {
      agent: agent.toConfig(),
      workspace: { kind: 'LocalWorkspace', working_dir: this.workingDir },
      initial_message: { role: 'user', content: [{ type: 'text', text: 'Say ok.' }], run: true },
    });
    for (let tries = 0; tries < 300; tries += 1) {
      const info = await this.api<{ execution_status: string }>('GET', `/api/conversations/${id}`);
      if (info.execution_status === 'finished') return id;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`conversation ${id} did not finish`);
  }

  /** Posts a user message without a run. */
  async postMessage(id: string, text: string): Promise<void> {
    await this.api('POST', `/api/conversations/${id}/events`, {
      role: 'user',
      content: [{ type: 'text', text }],
      run: false,
    });
  }

  /** A fresh context (no session key kept) with the probe, at `#/conversations/<id>` of `side`. */
  async open(
    browser: Browser,
    side: Side,
    id: string,
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(PROBE);
    const page = await context.newPage();
    await page.goto(`${side === 'bare' ? this.barePageUrl : `${this.url}/`}#/conversations/${id}`);
    return { context, page };
  }

  /** Clicks Connect with the key; resolves with ms from the click to the first event painted. */
  async connect(page: Page): Promise<number> {
    await page.getByLabel('Session API key').fill(KEY);
    await page.getByRole('button', { name: 'Connect' }).click();
    await until(page, 'window.__probe.firstEventAt > 0', 30_000);
    return page.evaluate('window.__probe.firstEventAt - window.__probe.clickAt') as Promise<number>;
  }

  /** (b) Connect → first event on screen, on a page opened at the conversation. */
  async connectToFirstEvent(browser: Browser): Promise<Comparison> {
    const id = await this.finishedConversation();
    const sample = (side: Side) => async () => {
      const { context, page } = await this.open(browser, side, id);
      try {
        return await this.connect(page);
      } finally {
        await context.close();
      }
    };
    const rounds = await bestOf({
      rounds: 10,
      warmup: 2,
      baseline: sample('bare'),
      candidate: sample('ui'),
    });
    return roundsComparison({
      scenario: 'click Connect → first event on screen, finished conversation (lower is better)',
      baseline: { name: 'bare page: raw events socket → div', samples: rounds.baseline },
      candidate: { name: '@agent-workspace/ui', samples: rounds.candidate },
      unit: 'ms',
      higherIsBetter: false,
      target: '≤ 300 ms',
    });
  }

  /** (c) A message posted through the API → its element on screen, each side on its own conversation. */
  async eventLatency(browser: Browser): Promise<Comparison> {
    const pages = {} as Record<Side, { context: BrowserContext; page: Page; id: string }>;
    for (const side of ['bare', 'ui'] as const) {
      const id = await this.finishedConversation();
      const opened = await this.open(browser, side, id);
      await this.connect(opened.page);
      pages[side] = { ...opened, id };
    }
    try {
      let serial = 0;
      const sample = (side: Side) => async () => {
        const { page, id } = pages[side];
        serial += 1;
        const text = `latency probe ${serial} ${Math.random().toString(36).slice(2)}`;
        await page.evaluate(`window.__probe.watch(${JSON.stringify(text)})`);
        const sentAt = Date.now();
        await this.postMessage(id, text);
        await until(page, 'window.__probe.seenAt !== undefined', 10_000);
        return ((await page.evaluate('window.__probe.seenAt')) as number) - sentAt;
      };
      const rounds = await bestOf({
        rounds: 20,
        warmup: 3,
        baseline: sample('bare'),
        candidate: sample('ui'),
      });
      return roundsComparison({
        scenario: 'POST a message → its element on screen, page watching (lower is better)',
        baseline: { name: 'bare page: raw events socket → div', samples: rounds.baseline },
        candidate: { name: '@agent-workspace/ui', samples: rounds.candidate },
        unit: 'ms',
        higherIsBetter: false,
        target: '≤ 100 ms',
      });
    } finally {
      for (const { context } of Object.values(pages)) await context.close();
    }
  }

  /** (d) 5,000 events: scroll through them all; the worst frame, long frames, heap and DOM. */
  async manyEvents(browser: Browser): Promise<Comparison[]> {
    const { id } = await this.api<{ id: string }>('POST', '/api/conversations', {
      agent: new Agent({ llm: new ScriptedLLM({ script: [] }), tools: [] }).toConfig(),
      workspace: { kind: 'LocalWorkspace', working_dir: this.workingDir },
    });
    let next = 0;
    const post = async (): Promise<void> => {
      while (next < MANY_EVENTS) {
        next += 1;
        await this.postMessage(
          id,
          `message ${next}: ${'lorem ipsum dolor sit amet '.repeat(1 + (next % 7))}`,
        );
      }
    };
    await Promise.all(Array.from({ length: 32 }, post));
    const sample = (side: Side) => async () => {
      const { context, page } = await this.open(browser, side, id);
      try {
        await this.connect(page);
        // Every event in: the log holds (or, virtualised, can reach) the last message.
        await until(page, HAS_ALL_EVENTS, 60_000);
        const frames = (await page.evaluate(SCROLL_THROUGH)) as { ms: number; at: number }[];
        const long = frames.filter((frame) => frame.ms > LONG_FRAME_MS);
        const cdp = await context.newCDPSession(page);
        await cdp.send('HeapProfiler.collectGarbage');
        await cdp.send('Performance.enable');
        const { metrics } = await cdp.send('Performance.getMetrics');
        const heap =
          metrics.find((metric) => metric.name === 'JSHeapUsedSize')?.value ?? Number.NaN;
        const nodes = (await page.evaluate("document.getElementsByTagName('*').length")) as number;
        return {
          worst: Math.max(...frames.map((frame) => frame.ms)),
          long: long.map((frame) => `${frame.ms.toFixed(0)} ms at ${(frame.at * 100).toFixed(0)}%`),
          frames: frames.length,
          heapMb: heap / 1024 / 1024,
          nodes,
        };
      } finally {
        await context.close();
      }
    };
    const rounds = await bestOf({
      rounds: 3,
      warmup: 1,
      baseline: sample('bare'),
      candidate: sample('ui'),
    });
    const facts = (side: keyof typeof rounds) =>
      rounds[side]
        .map(
          (round) =>
            `${round.long.length}/${round.frames}${round.long.length > 0 ? ` (${round.long.join(', ')})` : ''}`,
        )
        .join('; ');
    const nodes = (side: keyof typeof rounds) =>
      rounds[side].map((round) => round.nodes).join(', ');
    return [
      roundsComparison({
        scenario: `scroll ${MANY_EVENTS.toLocaleString('en-US')} events top to bottom, worst frame (lower is better)`,
        baseline: {
          name: 'bare page: 5,000 plain divs',
          samples: rounds.baseline.map((r) => r.worst),
        },
        candidate: { name: '@agent-workspace/ui', samples: rounds.candidate.map((r) => r.worst) },
        unit: 'ms',
        higherIsBetter: false,
        target: `0 frames over ${LONG_FRAME_MS} ms`,
        notes: `frames over ${LONG_FRAME_MS} ms / frames, each round (their length and scroll position): bare ${facts('baseline')}. ui ${facts('candidate')}`,
      }),
      roundsComparison({
        scenario: `JS heap with ${MANY_EVENTS.toLocaleString('en-US')} events open, after a GC (lower is better)`,
        baseline: {
          name: 'bare page: 5,000 plain divs',
          samples: rounds.baseline.map((r) => r.heapMb),
        },
        candidate: { name: '@agent-workspace/ui', samples: rounds.candidate.map((r) => r.heapMb) },
        unit: 'MB',
        higherIsBetter: false,
        target: '< 150 MB',
        notes: `DOM elements: bare ${nodes('baseline')}; ui ${nodes('candidate')}`,
      }),
    ];
  }
}

/** The scrolling element of the `Events` log: itself, an ancestor or a descendant that scrolls. */
const FIND_SCROLLER = `(() => {
  const log = document.querySelector('[role="log"][aria-label="Events"]') ?? document.querySelector('[role="log"]');
  if (!log) throw new Error('no role="log" named Events on the page');
  const scrolls = (element) => /(auto|scroll)/.test(getComputedStyle(element).overflowY) && element.scrollHeight > element.clientHeight + 1;
  for (let element = log; element; element = element.parentElement) if (scrolls(element)) return element;
  const inside = [...log.querySelectorAll('*')].find(scrolls);
  if (inside) return inside;
  return document.scrollingElement;
})()`;

/**
 * True once the page has all {@link MANY_EVENTS} events: the last message rendered, or, in a
 * virtualised list that renders the tail only, once scrolling to the end shows it.
 */
const HAS_ALL_EVENTS = `(() => {
  const log = document.querySelector('[role="log"]');
  if (!log) return false;
  if (log.textContent.includes('message ${MANY_EVENTS}:')) return true;
  for (const element of [log, ...log.querySelectorAll('*')]) {
    if (element.scrollHeight > element.clientHeight + 1) element.scrollTop = element.scrollHeight;
  }
  for (let element = log.parentElement; element; element = element.parentElement) {
    if (element.scrollHeight > element.clientHeight + 1) element.scrollTop = element.scrollHeight;
  }
  return false;
})()`;

/**
 * Scrolls the log from the top to the bottom, three quarters of its height per animation frame,
 * and resolves with every frame: its duration in ms (requestAnimationFrame deltas) and where the
 * scroll was when it began (0 top, 1 bottom).
 */
const SCROLL_THROUGH = `(async () => {
  const scroller = ${FIND_SCROLLER};
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  scroller.scrollTop = 0;
  for (let i = 0; i < 5; i += 1) await frame();
  const frames = [];
  let last = await frame();
  const step = (at) => frame().then((now) => { frames.push({ ms: now - last, at }); last = now; });
  while (scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 1) {
    const at = scroller.scrollTop / scroller.scrollHeight;
    scroller.scrollTop += Math.max(1, Math.floor(scroller.clientHeight * 0.75));
    await step(at);
  }
  for (let i = 0; i < 5; i += 1) await step(1);
  return frames;
})()`;
