import {
  elementScroll,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
  type VirtualizerOptions,
} from '@tanstack/virtual-core';
import { useLayoutEffect, useReducer, useState } from 'preact/hooks';

/** Options of {@link useVirtualizer}: the core's, with the element adapters filled in. */
export type UseVirtualizerOptions = Omit<
  VirtualizerOptions<HTMLElement, HTMLElement>,
  'observeElementRect' | 'observeElementOffset' | 'scrollToFn' | 'onChange'
>;

/**
 * A `@tanstack/virtual-core` {@link Virtualizer} over a scrolling element, for Preact: the
 * component renders again whenever the visible range or the measured sizes change. Give each
 * rendered item `data-index` and `ref={virtualizer.measureElement}` so its height is measured.
 */
export function useVirtualizer(
  options: UseVirtualizerOptions,
): Virtualizer<HTMLElement, HTMLElement> {
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const resolved: VirtualizerOptions<HTMLElement, HTMLElement> = {
    ...options,
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    onChange: () => rerender(undefined),
  };
  const [virtualizer] = useState(() => new Virtualizer(resolved));
  virtualizer.setOptions(resolved);
  useLayoutEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => {
    virtualizer._willUpdate();
  });
  return virtualizer;
}
