/** First index whose element satisfies `predicate`, which must be false then true along `items`. */
export function lowerBound<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (predicate(items[middle] as T)) high = middle;
    else low = middle + 1;
  }
  return low;
}
