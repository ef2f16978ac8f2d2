import { describe, expect, it } from 'vitest';
import { TailBuffer } from './tail-buffer.js';

/** Deterministic pseudo-random bytes. */
function bytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

describe('TailBuffer', () => {
  it('keeps everything while under the cap', () => {
    const tail = new TailBuffer(100);
    tail.write(Buffer.from('hello '));
    tail.write(Buffer.from('world'));
    expect(tail.toBuffer().toString()).toBe('hello world');
    expect(tail.droppedBytes).toBe(0);
    expect(tail.totalBytes).toBe(11);
  });

  it('keeps exactly the last maxBytes bytes across wrap-arounds', () => {
    const cap = 1000;
    const tail = new TailBuffer(cap);
    const written: Buffer[] = [];
    for (let i = 0; i < 300; i++) {
      const chunk = bytes(1 + ((i * 37) % 450), i);
      written.push(chunk);
      tail.write(chunk);
      const all = Buffer.concat(written);
      expect(tail.toBuffer().equals(all.subarray(Math.max(0, all.length - cap)))).toBe(true);
      expect(tail.droppedBytes).toBe(Math.max(0, all.length - cap));
    }
  });

  it('keeps the tail of a chunk larger than the cap', () => {
    const tail = new TailBuffer(4);
    tail.write(Buffer.from('ab'));
    tail.write(Buffer.from('0123456789'));
    expect(tail.toBuffer().toString()).toBe('6789');
    expect(tail.droppedBytes).toBe(8);
  });

  it('never allocates more than maxBytes, even for many one-byte chunks', () => {
    const tail = new TailBuffer(10_000);
    const one = Buffer.from('x');
    for (let i = 0; i < 200_000; i++) tail.write(one);
    expect(tail.capacity).toBe(10_000);
    expect(tail.toBuffer().length).toBe(10_000);
    expect(tail.droppedBytes).toBe(190_000);
  });

  it('grows on demand instead of allocating the cap up front', () => {
    const tail = new TailBuffer(10 * 1024 * 1024);
    expect(tail.capacity).toBe(0);
    tail.write(Buffer.from('small'));
    expect(tail.capacity).toBeLessThan(64 * 1024);
  });

  it('keeps nothing with a cap of 0 but counts the bytes', () => {
    const tail = new TailBuffer(0);
    tail.write(Buffer.from('abc'));
    expect(tail.toBuffer().length).toBe(0);
    expect(tail.droppedBytes).toBe(3);
  });
});
