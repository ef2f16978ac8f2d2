import type { Headers } from 'tar-stream';

/** The header fields {@link encodeTarHeaderInto} writes; the others are zero or empty. */
export interface PlainTarHeader {
  name: string;
  type?: Headers['type'] | undefined;
  mode?: number | undefined;
  linkname?: string | null | undefined;
  size: number;
  /** Modification time in milliseconds since the epoch, as `Stats.mtimeMs` (no `Date` made). */
  mtimeMs: number;
}

/** tar-stream's typeflag of each type it writes (`'0'` plus this); others are written as 0. */
const TYPEFLAGS: Partial<Record<string, number>> = {
  file: 0,
  link: 1,
  symlink: 2,
  'character-device': 3,
  'block-device': 4,
  directory: 5,
  fifo: 6,
  'contiguous-file': 7,
  'pax-header': 72,
};

const ZERO = 0x30;
const SPACE = 0x20;
/** Largest number eleven octal digits hold; a larger size is written in base 256. */
const ELEVEN_DIGITS = 8 ** 11 - 1;
/** Largest time a `Date` holds (ms); tar-stream reads any other as an invalid date, 0. */
const MAX_DATE_MS = 8.64e15;

/** A header with only what never changes here: uid, gid, devmajor, devminor, magic, version. */
const TEMPLATE = Buffer.alloc(512);
for (const at of [108, 116, 329, 337]) TEMPLATE.write('000000 ', at, 'latin1');
TEMPLATE.write('ustar\u000000', 257, 'latin1');
/** The sum of the template's bytes. */
const TEMPLATE_SUM = TEMPLATE.reduce((sum, byte) => sum + byte, 0);

/**
 * Writes the ustar header of `header` into the 512 bytes of `target` at `at` exactly as
 * tar-stream's `encode` writes it with owner 0 and no user or group name (`TarOutput`'s
 * headers), without its intermediate buffer and strings: a template of the fixed fields is
 * copied in and the checksum summed from the fields that vary. Returns false, writing nothing,
 * for a header it leaves to tar-stream: a name over 100 characters (a prefix or a pax header is
 * needed), any name or link name that is not ASCII, a size too large for eleven octal digits, a
 * modification time before 1970 or past 2038.
 */
export function encodeTarHeaderInto(header: PlainTarHeader, target: Buffer, at: number): boolean {
  const { name, size, mtimeMs } = header;
  const linkname = header.linkname || '';
  const seconds = Math.abs(mtimeMs) <= MAX_DATE_MS ? (mtimeMs / 1000) | 0 : 0;
  if (name.length > 100 || linkname.length > 100 || seconds < 0) return false;
  if (!Number.isInteger(size) || size < 0 || size > ELEVEN_DIGITS) return false;
  if (!isAscii(name) || !isAscii(linkname)) return false;
  TEMPLATE.copy(target, at);
  let sum = 8 * SPACE + TEMPLATE_SUM;
  sum += writeText(target, at, name);
  sum += writeOctal(target, at + 100, (header.mode as number) & 0o7777, 6);
  sum += writeOctal(target, at + 124, size, 11);
  sum += writeOctal(target, at + 136, seconds, 11);
  const typeflag = ZERO + (TYPEFLAGS[header.type as string] ?? 0);
  target[at + 156] = typeflag;
  sum += typeflag;
  sum += writeText(target, at + 157, linkname);
  writeOctal(target, at + 148, sum, 6);
  return true;
}

/** True when every character of `text` is ASCII (one byte in UTF-8). */
function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    if (text.charCodeAt(index) > 0x7f) return false;
  }
  return true;
}

/** Writes ASCII `text` at `at`; returns the sum of its bytes. */
function writeText(target: Buffer, at: number, text: string): number {
  let sum = 0;
  for (let index = 0; index < text.length; index += 1) sum += text.charCodeAt(index);
  if (text.length > 0) target.write(text, at, 'latin1');
  return sum;
}

/**
 * Writes `value` as `digits` octal digits, zero-padded, and a space (tar-stream's `encodeOct`;
 * callers keep `value` within the digits); returns the sum of the bytes written.
 */
function writeOctal(target: Buffer, at: number, value: number, digits: number): number {
  let sum = SPACE;
  let rest = value;
  for (let index = digits - 1; index >= 0; index -= 1) {
    // Bit operations while the value fits 31 bits (sizes may reach 33).
    const small = rest < 0x80000000;
    const digit = ZERO + (small ? rest & 7 : rest % 8);
    target[at + index] = digit;
    sum += digit;
    rest = small ? rest >>> 3 : Math.floor(rest / 8);
  }
  target[at + digits] = SPACE;
  return sum;
}
