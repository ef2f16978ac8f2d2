import { describe, expect, it } from 'vitest';
import { checkEgress } from './check-egress.js';
import { EgressAllowList } from './egress-allow-list.js';
import { loopbackHostsName } from './test-support/egress-targets.js';

const loopbackName = loopbackHostsName();
const allowList = EgressAllowList.parse(
  [
    'localhost:8080',
    '127.0.0.1:8080',
    '[::1]:8080',
    ...(loopbackName ? [`${loopbackName}:8080`] : []),
  ],
  'allowHosts',
);

describe('checkEgress', () => {
  it('lets a listed address through to itself, without a lookup', async () => {
    expect(await checkEgress({ allowList, host: '127.0.0.1', port: 8080 })).toEqual({
      outcome: 'allowed',
      addresses: [{ address: '127.0.0.1', family: 4 }],
    });
    expect(await checkEgress({ allowList, host: '[0::1]', port: 8080 })).toEqual({
      outcome: 'allowed',
      addresses: [{ address: '::1', family: 6 }],
    });
  });

  it('resolves localhost once and pins the loopback addresses it checked', async () => {
    const decision = await checkEgress({ allowList, host: 'LocalHost.', port: 8080 });
    expect(decision.outcome).toBe('allowed');
    if (decision.outcome !== 'allowed') return;
    expect(decision.addresses.length).toBeGreaterThan(0);
    expect(decision.addresses.every(({ address }) => /^(127\.|::1$)/.test(address))).toBe(true);
  });

  it('refuses what is not listed, and odd or ambiguous spellings', async () => {
    const cases: Array<[Parameters<typeof checkEgress>[0], string]> = [
      [{ allowList, host: '127.0.0.1', port: 8081 }, 'not_allowed'],
      [{ allowList, host: 'example.com', port: 8080 }, 'not_allowed'],
      [{ allowList, host: 'a b', port: 8080 }, 'not_allowed'],
      [{ allowList, host: '', port: 8080 }, 'not_allowed'],
      [{ allowList, host: '127.1', port: 8080 }, 'non_canonical_address'],
      [{ allowList, host: '0x7f000001', port: 8080 }, 'non_canonical_address'],
      // What the request wrote and what a URL parser made of it must name one host.
      [
        { allowList, host: 'localhost', port: 8080, connectHost: '127.0.0.1' },
        'non_canonical_address',
      ],
      [{ allowList, host: '[::1]', port: 8080, connectHost: '[0:0::1]' }, 'allowed'],
    ];
    for (const [options, expected] of cases) {
      const decision = await checkEgress(options);
      const outcome = decision.outcome === 'refused' ? decision.reason : decision.outcome;
      expect(outcome, JSON.stringify(options.host)).toBe(expected);
    }
  });

  it.skipIf(loopbackName === undefined)(
    'refuses a listed name other than localhost that resolves to loopback',
    async () => {
      expect(await checkEgress({ allowList, host: loopbackName as string, port: 8080 })).toEqual({
        outcome: 'refused',
        reason: 'loopback_address',
      });
    },
  );
});
