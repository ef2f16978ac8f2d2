import type { AxNodeWire } from '@agent-workspace/protocol';

/**
 * The accessibility tree as text for an agent to read, one node a line, indented by depth with
 * tabs, as BrowserGym prints it: `[bid] role 'name', value='...', property, property=value`.
 * Nodes without a bid (text, the page itself) have no `[bid]`.
 */
export function formatAxTree(nodes: readonly AxNodeWire[]): string {
  return nodes
    .map((node) => {
      let line = `${'\t'.repeat(node.depth)}${node.bid === null ? '' : `[${node.bid}] `}${node.role}`;
      if (node.name !== '') line += ` ${quote(node.name)}`;
      const details: string[] = [];
      if (node.value !== null && node.value !== '') details.push(`value=${quote(node.value)}`);
      for (const [key, value] of Object.entries(node.properties)) {
        if (value === true) details.push(key);
        else details.push(`${key}=${typeof value === 'string' ? quote(value) : String(value)}`);
      }
      return details.length > 0 ? `${line}, ${details.join(', ')}` : line;
    })
    .join('\n');
}

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}
