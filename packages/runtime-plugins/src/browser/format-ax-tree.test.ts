import { describe, expect, it } from 'vitest';
import { formatAxTree } from './format-ax-tree.js';

describe('formatAxTree', () => {
  it('prints one node a line, indented by depth, with bid, role, name, value and properties', () => {
    const text = formatAxTree([
      { bid: null, role: 'RootWebArea', name: 'Shop', depth: 0, value: null, properties: {} },
      {
        bid: '3',
        role: 'heading',
        name: "Bob's list",
        depth: 1,
        value: null,
        properties: { level: 2 },
      },
      { bid: null, role: 'StaticText', name: 'Hello', depth: 2, value: null, properties: {} },
      {
        bid: '7',
        role: 'checkbox',
        name: 'Subscribe',
        depth: 1,
        value: null,
        properties: { checked: false, focused: true },
      },
      {
        bid: '9',
        role: 'textbox',
        name: '',
        depth: 1,
        value: 'a\\b',
        properties: { required: true },
      },
      {
        bid: '10',
        role: 'link',
        name: 'Next',
        depth: 1,
        value: null,
        properties: { url: 'http://x/2' },
      },
    ]);
    expect(text.split('\n')).toEqual([
      "RootWebArea 'Shop'",
      "\t[3] heading 'Bob\\'s list', level=2",
      "\t\tStaticText 'Hello'",
      "\t[7] checkbox 'Subscribe', checked=false, focused",
      "\t[9] textbox, value='a\\\\b', required",
      "\t[10] link 'Next', url='http://x/2'",
    ]);
  });
});
