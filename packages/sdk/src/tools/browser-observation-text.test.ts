import type { BrowserOutputObservationWire } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import {
  axTreeText,
  browserObservationText,
  MAX_BROWSER_PAGE_TEXT_CHARS,
} from './browser-observation-text.js';

function observation(
  overrides: Partial<BrowserOutputObservationWire['extras']> = {},
  content = '# Prices\n\n| item | price |',
): BrowserOutputObservationWire {
  return {
    observation: 'browse',
    content,
    title: 'Prices',
    downloads: [],
    extras: {
      url: 'http://127.0.0.1:9/prices',
      trigger_by_action: 'browse_interactive',
      screenshot: 'data:image/png;base64,AAAA',
      screenshot_path: null,
      set_of_marks: '',
      error: false,
      goal_image_urls: [],
      open_pages_urls: ['http://127.0.0.1:9/prices'],
      active_page_index: 0,
      dom_object: {},
      axtree_object: {
        nodes: [
          { bid: null, role: 'RootWebArea', name: 'Prices', depth: 0, value: null, properties: {} },
          { bid: null, role: 'generic', name: '', depth: 1, value: null, properties: {} },
          { bid: '12', role: 'link', name: "Bob's page", depth: 1, value: null, properties: {} },
          {
            bid: '13',
            role: 'textbox',
            name: 'Search',
            depth: 2,
            value: 'apples',
            properties: { focused: true, required: false },
          },
        ],
      },
      extra_element_properties: {},
      last_browser_action: 'goto("http://127.0.0.1:9/prices")',
      last_browser_action_error: '',
      focused_element_bid: '13',
      ...overrides,
    },
  };
}

describe('browserObservationText', () => {
  it('shows URL, title, focus, page text and the accessibility tree, never the screenshot', () => {
    const text = browserObservationText(observation());
    expect(text).toBe(
      [
        '[Current URL: http://127.0.0.1:9/prices]',
        '[Page title: Prices]',
        '[Focused element bid: 13]',
        '============== BEGIN page text ==============',
        '# Prices\n\n| item | price |',
        '============== END page text ==============',
        '============== BEGIN accessibility tree ==============',
        "RootWebArea 'Prices'\n\t[12] link 'Bob\\'s page'\n\t\t[13] textbox 'Search', value='apples', focused, required=false",
        '============== END accessibility tree ==============',
      ].join('\n'),
    );
    expect(text).not.toContain('base64');
  });

  it('reports the failed action, tabs and downloads, and an error observation as its message', () => {
    const text = browserObservationText({
      ...observation({
        error: true,
        last_browser_action_error: 'no element with bid 99',
        open_pages_urls: ['http://a/', 'http://b/'],
        active_page_index: 1,
      }),
      downloads: [{ path: '/w/report.csv', url: 'http://b/report.csv', size: 42 }],
    });
    expect(text).toContain('[Error when running the browser action: no element with bid 99]');
    expect(text).toContain('[Open tabs: http://a/, http://b/; active tab index 1]');
    expect(text).toContain('[Downloaded http://b/report.csv to /w/report.csv (42 bytes)]');
    expect(
      browserObservationText({
        observation: 'error',
        content: 'The browser plugin is not enabled here',
        extras: { error_id: 'PLUGIN_DISABLED' },
      }),
    ).toBe('The browser plugin is not enabled here');
  });

  it('truncates a long page text with a marker', () => {
    const text = browserObservationText(observation({}, 'x'.repeat(100_000)));
    expect(text).toContain('<response clipped');
    expect(text.length).toBeLessThan(MAX_BROWSER_PAGE_TEXT_CHARS + 2_000);
  });

  it('leaves out nameless structural nodes without an element id', () => {
    expect(
      axTreeText([
        { bid: null, role: 'none', name: '', depth: 0, value: null, properties: {} },
        { bid: '3', role: 'generic', name: '', depth: 1, value: null, properties: {} },
      ]),
    ).toBe('\t[3] generic');
  });
});
