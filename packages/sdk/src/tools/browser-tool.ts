import { MAX_BROWSER_ACTIONS_CHARS } from '@agent-workspace/protocol';
import { z } from 'zod';
import { browserObservationText } from './browser-observation-text.js';
import { pluginToolCall } from './plugin-tool-call.js';
import { runtimePluginAvailability } from './runtime-plugin-availability.js';
import type { Tool, ToolAvailability, ToolContext, ToolObservation } from './tool.js';

/** LLM-facing name of {@link BrowserTool} (OpenHands' CodeAct `browser`). */
export const BROWSER_TOOL_NAME = 'browser';
/** The runtime plugin {@link BrowserTool} acts through. */
export const BROWSER_PLUGIN = 'browser';

const DESCRIPTION = `Interact with the browser using Python-like action calls. Use it ONLY when you need to interact with a webpage.

See the description of the "code" parameter for the available functions.

Multiple actions can be provided at once, one per line, but they are executed sequentially without any feedback from the page in between.
More than 2-3 actions usually leads to failure or unexpected behavior. Example:
fill('a12', 'example with "quotes"')
click('a51')
click('48', button='middle', modifiers=['Shift'])

Only the functions listed are supported; each line is one call with Python literal arguments (strings in quotes). A line that does not parse, or names another function, runs nothing and is reported back.

Every observation shows the current URL, the page title, the page as text and its accessibility tree. Elements you can act on carry an id in brackets, e.g. \`[12] button 'Submit'\`: that id is the \`bid\` the functions take. Ids change when the page changes: use the ones of the latest observation.`;

const CODE_DESCRIPTION = `The Python code that interacts with the browser.

The following functions are available. Nothing else is supported.

goto(url: str)
    Description: Navigate to a url.
    Examples:
        goto('http://www.example.com')

go_back()
    Description: Navigate to the previous page in history.

go_forward()
    Description: Navigate to the next page in history.

noop(wait_ms: float = 1000)
    Description: Do nothing, and optionally wait for the given time (in milliseconds).
    Examples:
        noop()
        noop(500)

scroll(delta_x: float, delta_y: float)
    Description: Scroll horizontally and vertically. Amounts in pixels, positive for right or down scrolling, negative for left or up scrolling. Dispatches a wheel event.
    Examples:
        scroll(0, 200)
        scroll(-50.2, -100.5)

fill(bid: str, value: str)
    Description: Fill out a form field. It focuses the element and triggers an input event with the entered text. It works for <input>, <textarea> and [contenteditable] elements.
    Examples:
        fill('237', 'example value')
        fill('45', 'multi-line\\nexample')

select_option(bid: str, options: str | list[str])
    Description: Select one or multiple options in a <select> element. You can specify option value or label to select. Multiple options can be selected.
    Examples:
        select_option('a48', 'blue')
        select_option('c48', ['red', 'green', 'blue'])

click(bid: str, button: Literal['left', 'middle', 'right'] = 'left', modifiers: list[Literal['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift']] = [])
    Description: Click an element.
    Examples:
        click('a51')
        click('b22', button='right')
        click('48', button='middle', modifiers=['Shift'])

dblclick(bid: str, button: Literal['left', 'middle', 'right'] = 'left', modifiers: list[Literal['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift']] = [])
    Description: Double click an element.
    Examples:
        dblclick('12')

hover(bid: str)
    Description: Hover over an element.
    Examples:
        hover('b8')

press(bid: str, key_comb: str)
    Description: Focus the matching element and press a combination of keys. It accepts the logical key names that are emitted in the keyboardEvent.key property of the keyboard events: Backquote, Minus, Equal, Backslash, Backspace, Tab, Delete, Escape, ArrowDown, End, Enter, Home, Insert, PageDown, PageUp, ArrowRight, ArrowUp, F1 - F12, Digit0 - Digit9, KeyA - KeyZ, etc. You can alternatively specify a single character you'd like to produce such as "a" or "#". Following modification shortcuts are also supported: Shift, Control, Alt, Meta, ShiftLeft, ControlOrMeta.
    Examples:
        press('88', 'Backspace')
        press('a26', 'ControlOrMeta+a')
        press('a61', 'Meta+Shift+t')

focus(bid: str)
    Description: Focus the matching element.
    Examples:
        focus('b455')

clear(bid: str)
    Description: Clear the input field.
    Examples:
        clear('996')

new_tab()
    Description: Open a new tab. It becomes the active one.

tab_focus(index: int)
    Description: Bring the tab at that index (0-based, see "Open tabs") to the front.
    Examples:
        tab_focus(2)

tab_close()
    Description: Close the current tab.`;

/** Arguments of {@link BrowserTool}, as OpenHands' CodeAct `browser` tool. */
export const browserArgsSchema = z.object({
  code: z.string().min(1).max(MAX_BROWSER_ACTIONS_CHARS).describe(CODE_DESCRIPTION),
});

/** Arguments of {@link BrowserTool}. */
export type BrowserArgs = z.infer<typeof browserArgsSchema>;

/**
 * OpenHands' CodeAct `browser`: the `code` (BrowserGym action calls) runs as one
 * `browse_interactive` action on the `browser` runtime plugin, through the conversation's action
 * executor (`ToolContext.actions`, else the workspace when it is one). Available only where that
 * executor announces the plugin. The text is {@link browserObservationText} (URL, title, error,
 * page text, accessibility tree; never the screenshot); `content` is `{ code, observation }`
 * with the whole wire observation.
 */
export class BrowserTool implements Tool<BrowserArgs> {
  readonly name = BROWSER_TOOL_NAME;
  readonly description = DESCRIPTION;
  readonly parameters = browserArgsSchema;
  readonly runtimePlugins = [BROWSER_PLUGIN] as const;

  available(context: ToolContext): Promise<ToolAvailability> {
    return runtimePluginAvailability(context, BROWSER_PLUGIN);
  }

  execute(args: BrowserArgs, context: ToolContext): Promise<ToolObservation> {
    return pluginToolCall({
      context,
      code: args.code,
      subject: 'The browser',
      // The tree comes as `axtree_object` either way; `return_axtree` would repeat it in the text.
      call: (actions) => actions.browseInteractive(args.code, { signal: context.signal }),
      observe: (observation) => ({
        text: browserObservationText(observation),
        content: { code: args.code, observation },
        isError: observation.observation === 'error' || observation.extras.error,
      }),
    });
  }
}
