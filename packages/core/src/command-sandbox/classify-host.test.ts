import { describe, expect, it } from 'vitest';
import { classifyHost, splitHostPort } from './classify-host.js';
import { isInternalAddress, isUnspecifiedAddress } from './internal-address.js';

describe('classifyHost', () => {
  it('reads names case-insensitively and without a trailing dot', () => {
    expect(classifyHost('Example.COM.')).toEqual({ kind: 'name', name: 'example.com' });
    expect(classifyHost('a_b.example-1.org')).toEqual({ kind: 'name', name: 'a_b.example-1.org' });
  });

  it('reads canonical addresses, IPv6 only in brackets and compressed', () => {
    expect(classifyHost('10.0.0.5')).toEqual({ kind: 'address', address: '10.0.0.5', family: 4 });
    expect(classifyHost('[0:0:0:0:0:0:0:1]')).toEqual({
      kind: 'address',
      address: '::1',
      family: 6,
    });
    expect(classifyHost('[::FFFF:127.0.0.1]')).toEqual({
      kind: 'address',
      address: '::ffff:7f00:1',
      family: 6,
    });
    expect(classifyHost('::1')).toEqual({ kind: 'invalid' });
    expect(classifyHost('[fe80::1%eth0]')).toEqual({ kind: 'invalid' });
  });

  it('calls every other IPv4 spelling an odd address', () => {
    for (const host of [
      '127.1',
      '0x7f000001',
      '2130706433',
      '0177.0.0.1',
      '127.0.0.1.',
      '1.2.3.0X1',
    ]) {
      expect(classifyHost(host), host).toEqual({ kind: 'odd-address' });
    }
  });

  it('refuses what no host name has', () => {
    for (const host of [
      '',
      'a b',
      'ex%61mple.com',
      '-a.com',
      'a..com',
      `${'a'.repeat(64)}.com`,
      'é.com',
    ]) {
      expect(classifyHost(host), host).toEqual({ kind: 'invalid' });
    }
    expect(classifyHost(`${'a.'.repeat(126)}ab`)).toEqual({ kind: 'invalid' });
    expect(classifyHost(`${'a.'.repeat(125)}abc`).kind).toBe('name');
  });
});

describe('splitHostPort', () => {
  it('splits names, addresses and bracketed IPv6 from their ports', () => {
    expect(splitHostPort('example.com:8080')).toEqual({ host: 'example.com', port: '8080' });
    expect(splitHostPort('example.com')).toEqual({ host: 'example.com' });
    expect(splitHostPort('[::1]:80')).toEqual({ host: '[::1]', port: '80' });
    expect(splitHostPort('[::1]')).toEqual({ host: '[::1]' });
    expect(splitHostPort('::1')).toBeUndefined();
    expect(splitHostPort('[::1]x')).toBeUndefined();
    expect(splitHostPort('[::1')).toBeUndefined();
  });
});

describe('isInternalAddress', () => {
  it('covers loopback, unspecified and link-local, mapped IPv4 included', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '0.0.0.0',
      '::',
      '169.254.169.254',
      'fe80::1',
    ]) {
      expect(isInternalAddress(address), address).toBe(true);
    }
    for (const address of ['10.0.0.1', '192.0.2.2', '8.8.8.8', 'fd00::2', '::ffff:10.0.0.1']) {
      expect(isInternalAddress(address), address).toBe(false);
    }
    expect(isUnspecifiedAddress('0.0.0.0') && isUnspecifiedAddress('::')).toBe(true);
    expect(isUnspecifiedAddress('0.0.0.1')).toBe(false);
  });
});
