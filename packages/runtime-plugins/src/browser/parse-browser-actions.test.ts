import { WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it } from 'vitest';
import { parseBrowserActions } from './parse-browser-actions.js';

function rejection(source: string): WorkspaceError {
  try {
    parseBrowserActions(source);
  } catch (error) {
    if (WorkspaceError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`parsed ${source}`);
}

describe('parseBrowserActions', () => {
  it('maps every supported BrowserGym call to its action', () => {
    const actions = parseBrowserActions(
      [
        'goto("http://127.0.0.1/a")',
        'go_back()',
        'go_forward()',
        'noop()',
        'noop(wait_ms=250)',
        'click("12")',
        "click('3', button='right', modifiers=['Shift', 'ControlOrMeta'])",
        'dblclick("4", "middle")',
        'hover("5")',
        'fill("6", "Ada Lovelace")',
        'select_option("7", "Blue")',
        'select_option("8", ["a", "b"])',
        'press("9", "Control+a")',
        'focus("10")',
        'clear("11")',
        'scroll(0, -200.5)',
        'new_tab()',
        'tab_close()',
        'tab_focus(-1)',
        'send_msg_to_user("done")',
      ].join('\n'),
    );
    expect(actions.map(({ line: _line, source: _source, ...rest }) => rest)).toEqual([
      { name: 'goto', url: 'http://127.0.0.1/a' },
      { name: 'go_back' },
      { name: 'go_forward' },
      { name: 'noop', waitMs: 1000 },
      { name: 'noop', waitMs: 250 },
      { name: 'click', bid: '12', button: 'left', modifiers: [] },
      { name: 'click', bid: '3', button: 'right', modifiers: ['Shift', 'ControlOrMeta'] },
      { name: 'dblclick', bid: '4', button: 'middle', modifiers: [] },
      { name: 'hover', bid: '5' },
      { name: 'fill', bid: '6', value: 'Ada Lovelace' },
      { name: 'select_option', bid: '7', options: ['Blue'] },
      { name: 'select_option', bid: '8', options: ['a', 'b'] },
      { name: 'press', bid: '9', keyComb: 'Control+a' },
      { name: 'focus', bid: '10' },
      { name: 'clear', bid: '11' },
      { name: 'scroll', deltaX: 0, deltaY: -200.5 },
      { name: 'new_tab' },
      { name: 'tab_close' },
      { name: 'tab_focus', index: -1 },
      { name: 'send_msg_to_user', text: 'done' },
    ]);
    expect(actions[6]).toMatchObject({
      line: 7,
      source: "click('3', button='right', modifiers=['Shift', 'ControlOrMeta'])",
    });
  });

  it('binds keyword arguments by name and takes a whole number as a bid', () => {
    expect(parseBrowserActions('fill(value="x", bid=42)')).toEqual([
      { name: 'fill', bid: '42', value: 'x', line: 1, source: 'fill(value="x", bid=42)' },
    ]);
  });

  it.each([
    ['click(', 'line 1: expected a value'],
    ['noop()\nfrobnicate("1")', 'line 2: unknown function frobnicate(); known: goto'],
    ['click()', 'line 1: click(): missing argument(s): bid'],
    ['go_back(1)', 'line 1: go_back(): takes at most 0 argument(s), got 1'],
    [
      'click("1", colour="red")',
      'unexpected keyword argument colour (parameters: bid, button, modifiers)',
    ],
    ['click("1", bid="2")', 'got two values for bid'],
    [
      'click("1", button="double")',
      'button must be one of "left", "middle", "right", got "double"',
    ],
    ['click("1", modifiers=["Hyper"])', 'modifiers must be a list of'],
    ['fill("1", 5)', 'value must be a string, got 5'],
    ['fill(None, "x")', 'bid must be an element id string such as "12", got None'],
    ['scroll("0", 10)', 'delta_x must be a number, got "0"'],
    ['tab_focus(1.5)', 'index must be a whole number'],
    ['noop(-5)', 'wait_ms must not be negative'],
    ['select_option("1", [1, 2])', 'options must be a string or a list of strings, got [1, 2]'],
    ['# only a comment', 'holds no action call'],
  ])('refuses %j as INVALID_ARGUMENT of args.browser_actions', (source, message) => {
    const error = rejection(source);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details).toEqual({ field: 'args.browser_actions' });
    expect(error.message).toContain(message);
  });
});
