/**
 * The GNU sparse format a pax header declares (`0.0`, `0.1` or `1.0`, from its `GNU.sparse.*`
 * keys), or `undefined` when the entry is not sparse. Such an entry's data is the file's
 * non-zero blocks (with a map in front for `1.0`), not its content.
 */
export function gnuSparseFormat(
  pax: Record<string, string> | null | undefined,
): string | undefined {
  if (!pax || !Object.keys(pax).some((key) => key.startsWith('GNU.sparse.'))) return undefined;
  if (pax['GNU.sparse.major'] !== undefined) {
    return `${pax['GNU.sparse.major']}.${pax['GNU.sparse.minor'] ?? '0'}`;
  }
  return pax['GNU.sparse.map'] !== undefined ? '0.1' : '0.0';
}
