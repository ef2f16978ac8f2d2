import { describe, expect, it } from 'vitest';
import { allowHostsIssues, sessionSandbox } from './session-allow-hosts.js';

const docker = { kind: 'docker', sandboxes: true };
const operator = {
  allowHosts: ['registry.npmjs.org', '*.githubusercontent.com', '10.0.0.5:8080', '[::1]:3000'],
  backend: docker,
};
const locs = (issues: { loc: unknown[] }[]) => issues.map((issue) => issue.loc);

describe('session allow-lists', () => {
  it('lets a session narrow the operator list: equal entries, covered names, ports and wildcards', () => {
    const narrowed = [
      'registry.npmjs.org:443',
      'REGISTRY.npmjs.org.',
      'raw.githubusercontent.com',
      '*.objects.githubusercontent.com:443',
      '10.0.0.5:8080',
      '[0:0::1]:3000',
    ];
    expect(allowHostsIssues(operator, narrowed)).toEqual([]);
    expect(sessionSandbox(operator, narrowed)).toEqual({ allowHosts: narrowed });
    expect(sessionSandbox(operator, undefined)).toEqual({ allowHosts: operator.allowHosts });
  });

  it('refuses what widens it, naming each entry', () => {
    const issues = allowHostsIssues(operator, [
      'registry.npmjs.org',
      'example.com',
      'registry.npmjs.org:8443',
      'githubusercontent.com',
      '*.com.example',
      '10.0.0.5',
    ]);
    expect(locs(issues)).toEqual([
      ['body', 'allow_hosts', 1],
      ['body', 'allow_hosts', 2],
      ['body', 'allow_hosts', 3],
      ['body', 'allow_hosts', 4],
      ['body', 'allow_hosts', 5],
    ]);
    expect(issues[0]?.msg).toContain("example.com is not covered by this server's allow-list");
  });

  it('takes any valid list without an operator list, and refuses malformed entries', () => {
    const open = { backend: docker };
    expect(allowHostsIssues(open, ['example.com'])).toEqual([]);
    expect(sessionSandbox(open, undefined)).toBeUndefined();
    expect(sessionSandbox(open, ['example.com'])).toEqual({ allowHosts: ['example.com'] });
    for (const bad of ['a b', '127.1', '*.com', 'host:99999', '0.0.0.0']) {
      const issues = allowHostsIssues(open, ['ok.example', bad]);
      expect(locs(issues), bad).toEqual([['body', 'allow_hosts', 1]]);
      expect(issues[0]?.msg, bad).not.toMatch(/^Value error, allow_hosts/);
    }
  });

  it('refuses an allow-list on a backend that cannot sandbox', () => {
    const issues = allowHostsIssues({ backend: { kind: 'swarm', sandboxes: false } }, [
      'a.example',
    ]);
    expect(locs(issues)).toEqual([['body', 'allow_hosts']]);
    expect(issues[0]?.msg).toContain('swarm backend cannot sandbox');
  });
});
