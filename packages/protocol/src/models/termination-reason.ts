import { z } from 'zod';

/**
 * Why a command ended other than by exiting on its own: `timeout` (its timeout elapsed),
 * `oom` (the kernel's OOM killer, reported by the memory cgroup), `limit` (a resource limit's
 * signal: CPU time `SIGXCPU` or file size `SIGXFSZ`), `signal` (another signal killed it).
 */
export const TERMINATION_REASONS = ['timeout', 'oom', 'limit', 'signal'] as const;

/** Why a command was ended; see {@link TERMINATION_REASONS}. */
export type TerminationReason = (typeof TERMINATION_REASONS)[number];

/** Wire schema of a {@link TerminationReason} (our extension field; OpenHands clients ignore it). */
export const terminationReasonSchema = z.enum(TERMINATION_REASONS);
