/**
 * Longest delay `setTimeout` honours (2³¹ − 1 ms, about 24.8 days); a longer one fires at once,
 * so timers clamp their delay to it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
