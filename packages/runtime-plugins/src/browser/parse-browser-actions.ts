import { invalidArgument, type WorkspaceError } from '@agent-workspace/core';
import { type PythonCall, type PythonValue, parsePythonCalls } from './parse-python-calls.js';

/** A mouse button of `click` and `dblclick`. */
export type MouseButton = 'left' | 'middle' | 'right';

/** A modifier key held during `click` and `dblclick`. */
export type KeyModifier = 'Alt' | 'Control' | 'ControlOrMeta' | 'Meta' | 'Shift';

/** One parsed BrowserGym action call, with where it came from. */
export type BrowserAction = { line: number; source: string } & (
  | { name: 'goto'; url: string }
  | { name: 'go_back' | 'go_forward' | 'new_tab' | 'tab_close' }
  | { name: 'noop'; waitMs: number }
  | { name: 'click' | 'dblclick'; bid: string; button: MouseButton; modifiers: KeyModifier[] }
  | { name: 'hover' | 'focus' | 'clear'; bid: string }
  | { name: 'fill'; bid: string; value: string }
  | { name: 'select_option'; bid: string; options: string[] }
  | { name: 'press'; bid: string; keyComb: string }
  | { name: 'scroll'; deltaX: number; deltaY: number }
  | { name: 'tab_focus'; index: number }
  | { name: 'send_msg_to_user'; text: string }
);

/** A BrowserGym action name this parser knows. */
type BrowserActionName = BrowserAction['name'];

const FIELD = 'args.browser_actions';

/** Parameters of each function, in order; a name ending in `?` is optional. */
const SIGNATURES: Readonly<Record<BrowserActionName, readonly string[]>> = {
  goto: ['url'],
  go_back: [],
  go_forward: [],
  noop: ['wait_ms?'],
  click: ['bid', 'button?', 'modifiers?'],
  dblclick: ['bid', 'button?', 'modifiers?'],
  hover: ['bid'],
  fill: ['bid', 'value'],
  select_option: ['bid', 'options'],
  press: ['bid', 'key_comb'],
  focus: ['bid'],
  clear: ['bid'],
  scroll: ['delta_x', 'delta_y'],
  new_tab: [],
  tab_close: [],
  tab_focus: ['index'],
  send_msg_to_user: ['text'],
};

const BUTTONS: readonly MouseButton[] = ['left', 'middle', 'right'];
const MODIFIERS: readonly KeyModifier[] = ['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift'];

/**
 * Parses a `browse_interactive` action string: BrowserGym calls such as `click("12")` or
 * `fill("7", "text")`, one per line, with Python-literal arguments (see `parsePythonCalls`).
 * Every call is checked against the signature of its function before anything runs.
 *
 * @throws WorkspaceError `INVALID_ARGUMENT` (field `args.browser_actions`) naming the line and
 * what is wrong: a syntax error, an unknown function, a missing, extra or mistyped argument.
 */
export function parseBrowserActions(source: string): BrowserAction[] {
  const parsed = parsePythonCalls(source);
  if (!parsed.ok) throw invalidArgument(FIELD, `line ${parsed.line}: ${parsed.message}`);
  if (parsed.calls.length === 0) throw invalidArgument(FIELD, 'holds no action call');
  return parsed.calls.map(toAction);
}

function toAction(call: PythonCall): BrowserAction {
  const fail = (reason: string): WorkspaceError =>
    invalidArgument(FIELD, `line ${call.line}: ${call.name}(): ${reason}`);
  if (!Object.hasOwn(SIGNATURES, call.name)) {
    throw invalidArgument(
      FIELD,
      `line ${call.line}: unknown function ${call.name}(); known: ${Object.keys(SIGNATURES).join(', ')}`,
    );
  }
  const name = call.name as BrowserActionName;
  const values = bindArguments(call, SIGNATURES[name], fail);
  const at = { line: call.line, source: call.source };
  const string = (param: string): string => {
    const value = values.get(param);
    if (typeof value !== 'string') throw fail(`${param} must be a string, got ${show(value)}`);
    return value;
  };
  const number = (param: string, fallback?: number): number => {
    const value = values.get(param) ?? fallback;
    if (typeof value !== 'number') throw fail(`${param} must be a number, got ${show(value)}`);
    return value;
  };
  // Bids are strings; an unquoted whole number is taken as one.
  const bid = (): string => {
    const value = values.get('bid');
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return String(value);
    if (typeof value !== 'string' || value === '') {
      throw fail(`bid must be an element id string such as "12", got ${show(value)}`);
    }
    return value;
  };
  switch (name) {
    case 'goto':
      return { ...at, name, url: string('url') };
    case 'go_back':
    case 'go_forward':
    case 'new_tab':
    case 'tab_close':
      return { ...at, name };
    case 'noop': {
      const waitMs = number('wait_ms', 1000);
      if (waitMs < 0) throw fail(`wait_ms must not be negative, got ${waitMs}`);
      return { ...at, name, waitMs };
    }
    case 'click':
    case 'dblclick': {
      const button = values.get('button') ?? 'left';
      if (!BUTTONS.includes(button as MouseButton)) {
        throw fail(`button must be one of ${BUTTONS.map(show).join(', ')}, got ${show(button)}`);
      }
      const modifiers = values.get('modifiers') ?? [];
      if (
        !Array.isArray(modifiers) ||
        !modifiers.every((key) => MODIFIERS.includes(key as KeyModifier))
      ) {
        throw fail(
          `modifiers must be a list of ${MODIFIERS.map(show).join(', ')}, got ${show(modifiers)}`,
        );
      }
      return {
        ...at,
        name,
        bid: bid(),
        button: button as MouseButton,
        modifiers: modifiers as KeyModifier[],
      };
    }
    case 'hover':
    case 'focus':
    case 'clear':
      return { ...at, name, bid: bid() };
    case 'fill':
      return { ...at, name, bid: bid(), value: string('value') };
    case 'select_option': {
      const options = values.get('options');
      const list = typeof options === 'string' ? [options] : options;
      if (!Array.isArray(list) || !list.every((option) => typeof option === 'string')) {
        throw fail(`options must be a string or a list of strings, got ${show(options)}`);
      }
      return { ...at, name, bid: bid(), options: list as string[] };
    }
    case 'press':
      return { ...at, name, bid: bid(), keyComb: string('key_comb') };
    case 'scroll':
      return { ...at, name, deltaX: number('delta_x'), deltaY: number('delta_y') };
    case 'tab_focus': {
      const index = number('index');
      if (!Number.isInteger(index)) throw fail(`index must be a whole number, got ${index}`);
      return { ...at, name, index };
    }
    case 'send_msg_to_user':
      return { ...at, name, text: string('text') };
  }
}

/** Matches positional and keyword arguments to `params` as Python would, by parameter name. */
function bindArguments(
  call: PythonCall,
  params: readonly string[],
  fail: (reason: string) => WorkspaceError,
): Map<string, PythonValue> {
  const names = params.map((param) => param.replace(/\?$/, ''));
  if (call.args.length > names.length) {
    throw fail(`takes at most ${names.length} argument(s), got ${call.args.length}`);
  }
  const values = new Map<string, PythonValue>(
    call.args.map((value, index) => [names[index] as string, value]),
  );
  for (const [keyword, value] of Object.entries(call.kwargs)) {
    if (!names.includes(keyword)) {
      throw fail(
        `unexpected keyword argument ${keyword} (parameters: ${names.join(', ') || 'none'})`,
      );
    }
    if (values.has(keyword)) throw fail(`got two values for ${keyword}`);
    values.set(keyword, value);
  }
  const missing = params.filter((param) => !param.endsWith('?') && !values.has(param));
  if (missing.length > 0) throw fail(`missing argument(s): ${missing.join(', ')}`);
  return values;
}

function show(value: PythonValue | undefined): string {
  if (value === undefined || value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
