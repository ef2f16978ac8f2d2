import { MIN_MASKED_SECRET_CHARS, SECRET_MASK } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { MAX_MASKED_VALUES, SecretMasker } from './secret-masker.js';
import { SecretStreamMasker } from './secret-stream-masker.js';

const TOKEN = 'ghp_Secr3tValue/with+odd=chars é';

function maskerOf(...values: string[]): SecretMasker {
  const masker = new SecretMasker();
  for (const value of values) masker.add(value);
  return masker;
}

describe('SecretMasker', () => {
  it('masks the value itself, wherever it is', () => {
    const masker = maskerOf(TOKEN);
    expect(masker.mask(`token=${TOKEN}; again ${TOKEN}.`)).toBe(
      `token=${SECRET_MASK}; again ${SECRET_MASK}.`,
    );
    expect(masker.mask('nothing here')).toBe('nothing here');
  });

  it('masks a value inside a larger token', () => {
    const masker = maskerOf('abcdef123456');
    expect(masker.mask('xxabcdef123456yy')).toBe(`xx${SECRET_MASK}yy`);
  });

  it('masks base64 (standard, URL-safe, padded or not, at any offset, wrapped over lines)', () => {
    const masker = maskerOf(TOKEN);
    const bytes = Buffer.from(TOKEN);
    const full = bytes.toString('base64');
    expect(masker.mask(full)).toBe(SECRET_MASK);
    expect(masker.mask(full.replace(/=+$/, ''))).toBe(SECRET_MASK);
    expect(masker.mask(bytes.toString('base64url'))).toBe(SECRET_MASK);
    // `echo $TOKEN | base64`: the value then a newline, so the tail differs.
    const echoed = Buffer.from(`${TOKEN}\n`).toString('base64');
    expect(masker.mask(echoed)).not.toContain(full.slice(0, 20));
    // The value at offsets 1 and 2 of a longer stream.
    for (const prefix of ['x', 'xy']) {
      const stream = Buffer.from(`${prefix}${TOKEN}trailing`).toString('base64');
      const masked = masker.mask(stream);
      expect(masked).toContain(SECRET_MASK);
      expect(masked.length).toBeLessThan(stream.length);
      const left = masked.replace(SECRET_MASK, '');
      // Only the prefix, the suffix "trailing" and the groups they share with the value are left.
      expect(left.length).toBeLessThanOrEqual(20);
    }
    // `base64` wraps lines at 76 characters.
    const long = `${TOKEN}${TOKEN}${TOKEN}`;
    const wrapped = Buffer.from(long)
      .toString('base64')
      .replace(/(.{76})/g, '$1\n');
    expect(wrapped).toContain('\n');
    expect(maskerOf(long).mask(wrapped)).toBe(SECRET_MASK);
    // Wrapped with CRLF at 20 characters, after lines of text with breaks of their own: exactly
    // the wrapped span is masked, what surrounds it is kept.
    const crlf = Buffer.from(long)
      .toString('base64')
      .replace(/(.{20})/g, '$1\r\n');
    const text = `first line\nsecond line\r\n${crlf}\nafter`;
    expect(maskerOf(long).mask(text)).toBe(
      `first line\nsecond line\r\n${SECRET_MASK}${crlf.endsWith('\r\n') ? '\r\n' : ''}\nafter`,
    );
  });

  it('masks hex (either case), URL encoding and the JSON-escaped value', () => {
    const value = 'p@ss word"with\\quote';
    const masker = maskerOf(value);
    const hex = Buffer.from(value).toString('hex');
    expect(masker.mask(`h=${hex}`)).toBe(`h=${SECRET_MASK}`);
    expect(masker.mask(`H=${hex.toUpperCase()}`)).toBe(`H=${SECRET_MASK}`);
    expect(masker.mask(`q=${encodeURIComponent(value)}`)).toBe(`q=${SECRET_MASK}`);
    expect(masker.mask(`f=${encodeURIComponent(value).replaceAll('%20', '+')}`)).toBe(
      `f=${SECRET_MASK}`,
    );
    expect(masker.mask(JSON.stringify({ v: value }))).toBe(`{"v":"${SECRET_MASK}"}`);
  });

  it('masks overlapping values as one span', () => {
    const masker = maskerOf('AAAAbbbbCCCC', 'CCCCddddEEEE');
    expect(masker.mask('<AAAAbbbbCCCCddddEEEE>')).toBe(`<${SECRET_MASK}>`);
    expect(masker.mask('AAAAbbbbCCCC and CCCCddddEEEE')).toBe(`${SECRET_MASK} and ${SECRET_MASK}`);
  });

  it('does not mask values shorter than the minimum', () => {
    const short = 'x'.repeat(MIN_MASKED_SECRET_CHARS - 1);
    const masker = maskerOf(short);
    expect(masker.size).toBe(0);
    expect(masker.mask(`a ${short} b`)).toBe(`a ${short} b`);
  });

  it('masks every string of a JSON-like value, keeping keys and the original', () => {
    const masker = maskerOf(TOKEN);
    const event = { kind: 'X', list: [TOKEN, 1, null, { deep: `a${TOKEN}` }], [TOKEN]: true };
    const masked = masker.maskDeep(event);
    expect(masked).toEqual({
      kind: 'X',
      list: [SECRET_MASK, 1, null, { deep: `a${SECRET_MASK}` }],
      [TOKEN]: true,
    });
    expect(event.list[0]).toBe(TOKEN);
  });

  it('refuses more than MAX_MASKED_VALUES values rather than forget one', () => {
    const masker = new SecretMasker();
    for (let index = 0; index < MAX_MASKED_VALUES; index += 1) masker.add(`value-${index}-xxxx`);
    expect(masker.canAdd('one-more-value')).toBe(false);
    expect(masker.canAddAll(['value-1-xxxx'])).toBe(true);
    expect(() => masker.add('one-more-value')).toThrow(RangeError);
  });
});

describe('SecretStreamMasker', () => {
  it('masks a value split across chunks, and passes the rest on', () => {
    const masker = maskerOf(TOKEN);
    const text = `before ${TOKEN} middle ${Buffer.from(TOKEN).toString('base64')} after`;
    for (const size of [1, 3, 7, 50]) {
      const stream = new SecretStreamMasker(masker);
      let out = '';
      for (let at = 0; at < text.length; at += size) out += stream.push(text.slice(at, at + size));
      out += stream.flush();
      expect(out).toBe(masker.mask(text));
      expect(out).not.toContain(TOKEN);
    }
  });

  it('passes text on at once when nothing is masked', () => {
    const stream = new SecretStreamMasker(new SecretMasker());
    expect(stream.push('hello')).toBe('hello');
    expect(stream.flush()).toBe('');
  });
});
