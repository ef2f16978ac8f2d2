import type { AxNodeWire } from '@agent-workspace/protocol';

/** The attribute holding each element's id (BrowserGym's `bid`) in the page. */
export const BID_ATTRIBUTE = 'data-aw-bid';

/** Bounds of one snapshot. */
export interface PageSnapshotLimits {
  /** Most accessibility-tree nodes; past it the tree stops and `truncated` is set. */
  maxNodes: number;
  /** Most elements walked (visible or not); past it the walk stops and `truncated` is set. */
  maxElements: number;
  /** Longest accessible name or value kept, in characters. */
  maxTextChars: number;
  /** Longest HTML of the visible page handed back for Markdown, in characters. */
  maxHtmlChars: number;
}

/** What the snapshot script answers. */
export interface PageSnapshot {
  url: string;
  title: string;
  /** Flat accessibility tree in document order; depth 0 is the page itself. */
  nodes: AxNodeWire[];
  /** Bid of the focused element, or `''`. */
  focusedBid: string;
  /** HTML of what is visible (hidden elements, scripts and styles left out), absolute links. */
  html: string;
  /** True when a limit cut the tree or the HTML short. */
  truncated: boolean;
}

// Runs in the page, so it is plain JavaScript kept as text: a function compiled by our build
// (and by vitest) could carry helper calls that do not exist in the page. String.raw keeps the
// regular expressions' backslashes; the script holds no backticks, and its one substitution is
// the attribute name.
const SCRIPT = String.raw`(limits) => {
  const ATTR = ${JSON.stringify(BID_ATTRIBUTE)};
  const COUNTER = '__agentWorkspaceNextBid';
  // The counter lives in the page, so ids keep increasing for as long as the document lives.
  if (typeof window[COUNTER] !== 'number') {
    Object.defineProperty(window, COUNTER, { value: 1, writable: true, configurable: true });
  }
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE',
    'BASE', 'PARAM', 'SOURCE', 'TRACK']);
  // Shown as one node; their insides are not walked and not put into the Markdown.
  const OPAQUE = new Set(['SVG', 'IFRAME', 'FRAME', 'OBJECT', 'EMBED', 'CANVAS', 'VIDEO', 'AUDIO',
    'TEXTAREA', 'SELECT', 'DATALIST']);
  const BLOCK = new Set(['ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BR', 'DD', 'DIV', 'DL', 'DT',
    'FIELDSET', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6',
    'HEADER', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'TABLE', 'TD', 'TH', 'TR',
    'UL']);
  const NAME_FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell',
    'heading', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio',
    'rowheader', 'switch', 'tab', 'tooltip', 'treeitem', 'LabelText', 'legend', 'caption',
    'term']);
  const INPUT_ROLES = { button: 'button', submit: 'button', reset: 'button', image: 'button',
    file: 'button', color: 'button', checkbox: 'checkbox', radio: 'radio', range: 'slider',
    number: 'spinbutton', search: 'searchbox' };
  const TAG_ROLES = { BUTTON: 'button', TEXTAREA: 'textbox', OPTION: 'option', OPTGROUP: 'group',
    H1: 'heading', H2: 'heading', H3: 'heading', H4: 'heading', H5: 'heading', H6: 'heading',
    UL: 'list', OL: 'list', MENU: 'list', DL: 'list', LI: 'listitem', DT: 'term',
    DD: 'definition', NAV: 'navigation', MAIN: 'main', HEADER: 'banner', FOOTER: 'contentinfo',
    ASIDE: 'complementary', ARTICLE: 'article', FORM: 'form', TABLE: 'table', THEAD: 'rowgroup',
    TBODY: 'rowgroup', TFOOT: 'rowgroup', TR: 'row', TD: 'cell', CAPTION: 'caption',
    FIELDSET: 'group', LEGEND: 'legend', LABEL: 'LabelText', DIALOG: 'dialog', DETAILS: 'group',
    SUMMARY: 'button', P: 'paragraph', BLOCKQUOTE: 'blockquote', CODE: 'code', HR: 'separator',
    PROGRESS: 'progressbar', METER: 'meter', OUTPUT: 'status', FIGURE: 'figure',
    IFRAME: 'iframe', FRAME: 'iframe', VIDEO: 'video', AUDIO: 'audio', TIME: 'time' };

  const collapse = (text) => text.replace(/\s+/g, ' ').trim();
  const cap = (text) => {
    const clean = collapse(text);
    return clean.length > limits.maxTextChars ? clean.slice(0, limits.maxTextChars) + '…' : clean;
  };
  const tagOf = (el) => el.tagName.toUpperCase();
  const typeOf = (el) => (el.getAttribute('type') || 'text').toLowerCase();
  const visible = (el) => el.checkVisibility() || getComputedStyle(el).display === 'contents';

  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {
    active = active.shadowRoot.activeElement;
  }

  // Text of an element as a name: text nodes and image alts, hidden parts and form fields left out.
  const textOf = (root) => {
    let out = '';
    const visit = (node) => {
      if (out.length > limits.maxTextChars) return;
      if (node.nodeType === 3) { out += node.data; return; }
      if (node.nodeType !== 1) return;
      const tag = tagOf(node);
      if (SKIP.has(tag) || tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
      if (!visible(node)) return;
      if (tag === 'IMG') { out += ' ' + (node.getAttribute('alt') || '') + ' '; return; }
      const label = node.getAttribute('aria-label');
      if (label) { out += ' ' + label + ' '; return; }
      const block = BLOCK.has(tag);
      if (block) out += ' ';
      if (node.shadowRoot) node.shadowRoot.childNodes.forEach(visit);
      node.childNodes.forEach(visit);
      if (block) out += ' ';
    };
    if (root.shadowRoot) root.shadowRoot.childNodes.forEach(visit);
    root.childNodes.forEach(visit);
    return cap(out);
  };

  const implicitRole = (el, tag) => {
    if (tag === 'A' || tag === 'AREA') return el.hasAttribute('href') ? 'link' : null;
    if (tag === 'INPUT') {
      const type = typeOf(el);
      if (type === 'hidden') return null;
      if (INPUT_ROLES[type]) return INPUT_ROLES[type];
      return el.hasAttribute('list') ? 'combobox' : 'textbox';
    }
    if (tag === 'SELECT') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (tag === 'IMG') return el.getAttribute('alt') === '' ? null : 'img';
    if (tag === 'TH') return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
    if (tag === 'SECTION') return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : null;
    if (tag === 'SVG') return el.hasAttribute('aria-label') || el.querySelector('title') ? 'img' : null;
    return TAG_ROLES[tag] || null;
  };

  const roleOf = (el, tag, style, parentCursor) => {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit === 'presentation' || explicit === 'none') return null;
    if (explicit) return explicit;
    const implicit = implicitRole(el, tag);
    if (implicit) return implicit;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'textbox';
    // Other elements that take clicks: focusable ones, click handlers, where the pointer starts.
    const clickable = el.hasAttribute('tabindex') || typeof el.onclick === 'function' ||
      (style !== null && style.cursor === 'pointer' && parentCursor !== 'pointer');
    return clickable ? 'generic' : null;
  };

  const nameOf = (el, tag, role) => {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const text = labelledBy.split(/\s+/).map((id) => {
        const ref = document.getElementById(id);
        return ref ? ref.getAttribute('aria-label') || textOf(ref) : '';
      }).join(' ');
      if (collapse(text)) return cap(text);
    }
    const ariaLabel = el.getAttribute('aria-label');
    if (ariaLabel && ariaLabel.trim()) return cap(ariaLabel);
    if (tag === 'INPUT') {
      const type = typeOf(el);
      if (type === 'submit' || type === 'reset' || type === 'button') {
        return cap(el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : ''));
      }
      if (type === 'image') return cap(el.getAttribute('alt') || el.value || 'Submit');
    }
    if (el.labels && el.labels.length > 0) {
      const text = Array.from(el.labels).map((label) => textOf(label)).join(' ');
      if (collapse(text)) return cap(text);
    }
    if (tag === 'IMG' || tag === 'AREA') {
      const alt = el.getAttribute('alt');
      if (alt) return cap(alt);
    }
    if (tag === 'OPTGROUP' && el.label) return cap(el.label);
    const captionTag = { FIELDSET: 'LEGEND', TABLE: 'CAPTION', FIGURE: 'FIGCAPTION', SVG: 'TITLE' }[tag];
    if (captionTag) {
      const caption = Array.from(el.children).find((child) => tagOf(child) === captionTag);
      if (caption && collapse(caption.textContent)) return cap(caption.textContent);
    }
    if (NAME_FROM_CONTENT.has(role)) {
      const text = textOf(el);
      if (text) return text;
    }
    const title = el.getAttribute('title');
    if (title && title.trim()) return cap(title);
    const placeholder = el.getAttribute('placeholder');
    if ((tag === 'INPUT' || tag === 'TEXTAREA') && placeholder) return cap(placeholder);
    return '';
  };

  const valueOf = (el, tag, role) => {
    if (tag === 'INPUT') {
      const type = typeOf(el);
      if (INPUT_ROLES[type] === 'button' || type === 'checkbox' || type === 'radio') return null;
      return type === 'password' ? '•'.repeat(el.value.length) : cap(el.value);
    }
    if (tag === 'TEXTAREA') return cap(el.value);
    if (tag === 'SELECT') return cap(Array.from(el.selectedOptions).map((o) => o.textContent).join(', '));
    if (tag === 'PROGRESS' || tag === 'METER') return String(el.value);
    if (role === 'textbox' && el.isContentEditable) return cap(el.innerText);
    return null;
  };

  const ariaState = (value) => value === 'true' ? true : value === 'false' ? false : value;
  const propertiesOf = (el, tag, role) => {
    const props = {};
    const type = tag === 'INPUT' ? typeOf(el) : '';
    if (type === 'checkbox' || type === 'radio') props.checked = el.indeterminate ? 'mixed' : el.checked;
    else if (el.hasAttribute('aria-checked')) props.checked = ariaState(el.getAttribute('aria-checked'));
    if (el.hasAttribute('aria-pressed')) props.pressed = ariaState(el.getAttribute('aria-pressed'));
    if (el.hasAttribute('aria-selected')) props.selected = ariaState(el.getAttribute('aria-selected'));
    else if (tag === 'OPTION') props.selected = el.selected;
    if (el.hasAttribute('aria-expanded')) props.expanded = ariaState(el.getAttribute('aria-expanded'));
    else if (tag === 'DETAILS') props.expanded = el.open;
    else if (tag === 'SUMMARY' && el.parentElement && tagOf(el.parentElement) === 'DETAILS') props.expanded = el.parentElement.open;
    if (el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true') props.disabled = true;
    if (el.required || el.getAttribute('aria-required') === 'true') props.required = true;
    if ((tag === 'INPUT' || tag === 'TEXTAREA') && el.readOnly) props.readonly = true;
    if (tag === 'SELECT' && el.multiple) props.multiselectable = true;
    if (el === active) props.focused = true;
    if (role === 'heading') props.level = Number(el.getAttribute('aria-level')) || Number(tag.slice(1)) || 2;
    if (role === 'link' && el.href) props.url = String(el.href);
    return props;
  };

  const seen = new Set();
  const bidOf = (el) => {
    let bid = el.getAttribute(ATTR);
    if (bid === null || !/^\d+$/.test(bid) || seen.has(bid)) {
      bid = String(window[COUNTER]++);
      el.setAttribute(ATTR, bid);
    }
    seen.add(bid);
    return bid;
  };

  // The Markdown is made from a copy of the visible page in a document without a window, where
  // nothing loads or runs, keeping only the attributes Markdown uses (a code block's class names
  // its language).
  const inert = document.implementation.createHTMLDocument('');
  const KEPT = new Set(['href', 'src', 'alt', 'title']);
  const copyOf = (el, tag) => {
    const copy = inert.importNode(el, false);
    for (const name of copy.getAttributeNames()) {
      if (!KEPT.has(name) && !(name === 'class' && tag === 'CODE')) copy.removeAttribute(name);
    }
    if (tag === 'A' && el.hasAttribute('href')) copy.setAttribute('href', String(el.href));
    if (tag === 'IMG') {
      if (el.src && !el.src.startsWith('data:')) copy.setAttribute('src', el.src);
      else copy.removeAttribute('src');
    }
    return copy;
  };

  const nodes = [{ bid: null, role: 'RootWebArea', name: cap(document.title), depth: 0, value: null, properties: {} }];
  let walked = 0;
  let truncated = false;

  // ctx.covered: the name and value of the nearest node, which its text need not repeat.
  const visitText = (node, ctx) => {
    if (ctx.textHidden) return;
    if (ctx.copy) ctx.copy.appendChild(inert.createTextNode(node.data));
    if (ctx.axHidden) return;
    const text = collapse(node.data);
    if (!text || ctx.covered.includes(text)) return;
    if (nodes.length >= limits.maxNodes) { truncated = true; return; }
    nodes.push({ bid: null, role: 'StaticText', name: cap(text), depth: ctx.depth, value: null, properties: {} });
  };

  const visitElement = (el, ctx) => {
    if (walked++ >= limits.maxElements) { truncated = true; return; }
    const tag = tagOf(el);
    if (SKIP.has(tag)) return;
    let style = null;
    // Options have no box of their own; their select's visibility stands for them.
    if (!ctx.inSelect) {
      style = getComputedStyle(el);
      if (style.display === 'none') return;
      if (style.display !== 'contents' && !el.checkVisibility()) return;
    }
    const invisible = style !== null && style.visibility !== 'visible';
    const axHidden = ctx.axHidden || el.getAttribute('aria-hidden') === 'true';
    const role = invisible || axHidden ? null : roleOf(el, tag, style, ctx.cursor);
    const child = {
      depth: ctx.depth, covered: ctx.covered, axHidden, textHidden: invisible,
      inSelect: ctx.inSelect || tag === 'SELECT' || tag === 'DATALIST',
      cursor: style ? style.cursor : ctx.cursor, copy: null,
    };
    if (role !== null) {
      if (nodes.length >= limits.maxNodes) {
        truncated = true;
      } else {
        const name = nameOf(el, tag, role);
        const value = valueOf(el, tag, role);
        nodes.push({ bid: bidOf(el), role, name, depth: ctx.depth, value,
          properties: propertiesOf(el, tag, role) });
        child.depth = ctx.depth + 1;
        child.covered = name + ' ' + (value || '');
      }
    }
    if (ctx.copy && !OPAQUE.has(tag) && !ctx.inSelect) {
      if (invisible) {
        child.copy = ctx.copy;
      } else {
        child.copy = copyOf(el, tag);
        ctx.copy.appendChild(child.copy);
      }
    }
    if (OPAQUE.has(tag) && tag !== 'SELECT' && tag !== 'DATALIST') return;
    if (el.shadowRoot) visitChildren(el.shadowRoot, child);
    visitChildren(el, child);
  };

  const visitChildren = (parent, ctx) => {
    for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
      if (node.nodeType === 1) visitElement(node, ctx);
      else if (node.nodeType === 3) visitText(node, ctx);
    }
  };

  const root = document.body || document.documentElement;
  const copyRoot = inert.createElement('body');
  if (root) {
    const ctx = { depth: 1, covered: '', axHidden: false, textHidden: false, inSelect: false, cursor: 'auto', copy: copyRoot };
    visitChildren(root, ctx);
  }
  let html = copyRoot.innerHTML;
  if (html.length > limits.maxHtmlChars) {
    html = html.slice(0, limits.maxHtmlChars);
    truncated = true;
  }
  const focused = active && active !== document.body && active !== document.documentElement ? active : null;
  return {
    url: location.href,
    title: document.title,
    nodes,
    focusedBid: (focused && focused.getAttribute(ATTR)) || '',
    html,
    truncated,
  };
}`;

/**
 * The JavaScript expression that snapshots a page: it gives every element of the accessibility
 * tree a stable id (a `data-aw-bid` attribute set once per element, numbered by a counter kept in
 * the page, so ids only grow and a node keeps its id across snapshots) and answers the flat tree
 * (roles, accessible names, values and states; hidden elements left out), the focused element and
 * the visible HTML. Evaluate it with `page.evaluate(expression)`.
 */
export function pageSnapshotExpression(limits: PageSnapshotLimits): string {
  return `(${SCRIPT})(${JSON.stringify(limits)})`;
}
