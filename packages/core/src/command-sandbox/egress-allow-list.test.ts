import { MAX_ALLOW_HOSTS } from '@agent-workspace/protocol/constants';
import { describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { classifyHost } from './classify-host.js';
import { EgressAllowList, type EgressTarget } from './egress-allow-list.js';

/** The INVALID_ARGUMENT error `parse` throws for `entries`. */
function parseError(entries: unknown): WorkspaceError {
  try {
    EgressAllowList.parse(entries, 'network.allowHosts');
  } catch (error) {
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT'), String(error)).toBe(true);
    return error as WorkspaceError;
  }
  throw new Error(`expected ${JSON.stringify(entries)} to be refused`);
}

function target(host: string): EgressTarget {
  const form = classifyHost(host);
  if (form.kind !== 'name' && form.kind !== 'address') throw new Error(`not a target: ${host}`);
  return form;
}

describe('EgressAllowList.parse', () => {
  it('normalises entries and gives ports 80 and 443 to those without one', () => {
    const list = EgressAllowList.parse(
      ['Example.COM.', '*.Example.org:8443', '10.0.0.5:8080', '[0::1]:3000', 'localhost'],
      'network.allowHosts',
    );
    expect(list.entries).toEqual([
      { entry: 'example.com', kind: 'name', host: 'example.com', ports: [80, 443] },
      { entry: '*.example.org:8443', kind: 'wildcard', host: 'example.org', ports: [8443] },
      { entry: '10.0.0.5:8080', kind: 'address', host: '10.0.0.5', ports: [8080] },
      { entry: '[::1]:3000', kind: 'address', host: '::1', ports: [3000] },
      { entry: 'localhost', kind: 'name', host: 'localhost', ports: [80, 443] },
    ]);
    expect(EgressAllowList.parse([], 'network.allowHosts').entries).toEqual([]);
  });

  it('names the bad entry and says why', () => {
    const cases: Array<[unknown[], string, RegExp]> = [
      [['ok.com', 'bad host'], 'network.allowHosts[1]', /host name/],
      [[42], 'network.allowHosts[0]', /string, got number/],
      [['127.1'], 'network.allowHosts[0]', /non-canonical/],
      [['0x7f000001:80'], 'network.allowHosts[0]', /non-canonical/],
      [['::1'], 'network.allowHosts[0]', /IPv6 in brackets/],
      [['example.com:0'], 'network.allowHosts[0]', /port/],
      [['example.com:65536'], 'network.allowHosts[0]', /port/],
      [['example.com:http'], 'network.allowHosts[0]', /port/],
      [['*.com'], 'network.allowHosts[0]', /two labels/],
      [['*'], 'network.allowHosts[0]', /host name/],
      [['*.10.0.0.1'], 'network.allowHosts[0]', /non-canonical|"\*\."/],
      [['0.0.0.0'], 'network.allowHosts[0]', /unspecified/],
      [['[::]:80'], 'network.allowHosts[0]', /unspecified/],
      [[`${'a'.repeat(250)}.com`], 'network.allowHosts[0]', /253/],
    ];
    for (const [entries, field, reason] of cases) {
      const error = parseError(entries);
      expect(error.details, JSON.stringify(entries)).toEqual({ field });
      expect(error.message).toMatch(reason);
      expect(error.message.startsWith(`${field} `)).toBe(true);
    }
  });

  it('refuses a non-array and more than the limit of entries', () => {
    expect(parseError('example.com').details).toEqual({ field: 'network.allowHosts' });
    const tooMany = Array.from({ length: MAX_ALLOW_HOSTS + 1 }, (_, index) => `h${index}.com`);
    expect(parseError(tooMany).message).toContain(`at most ${MAX_ALLOW_HOSTS}`);
    expect(EgressAllowList.parse(tooMany.slice(1), 'x').entries).toHaveLength(MAX_ALLOW_HOSTS);
  });
});

describe('EgressAllowList.allows', () => {
  const list = EgressAllowList.parse(
    ['example.com', '*.example.org:8443', '127.0.0.1:8080', '[::1]:3000'],
    'network.allowHosts',
  );

  it('matches names exactly, case-insensitively and on their ports', () => {
    expect(list.allows(target('EXAMPLE.com.'), 443)).toBe(true);
    expect(list.allows(target('example.com'), 80)).toBe(true);
    expect(list.allows(target('example.com'), 8080)).toBe(false);
    expect(list.allows(target('www.example.com'), 443)).toBe(false);
    expect(list.allows(target('notexample.com'), 443)).toBe(false);
  });

  it('matches wildcards below the name at any depth, not the name itself', () => {
    expect(list.allows(target('a.example.org'), 8443)).toBe(true);
    expect(list.allows(target('a.b.example.org'), 8443)).toBe(true);
    expect(list.allows(target('example.org'), 8443)).toBe(false);
    expect(list.allows(target('aexample.org'), 8443)).toBe(false);
    expect(list.allows(target('a.example.org'), 443)).toBe(false);
  });

  it('matches addresses only to the same literal, never to a name', () => {
    expect(list.allows(target('127.0.0.1'), 8080)).toBe(true);
    expect(list.allows(target('[0:0::1]'), 3000)).toBe(true);
    expect(list.allows(target('127.0.0.2'), 8080)).toBe(false);
    expect(list.allows(target('[::ffff:127.0.0.1]'), 8080)).toBe(false);
    expect(list.allows(target('localhost'), 8080)).toBe(false);
  });
});
