/** Tiny benchmark harness: interleaved samples, percentiles and ratios against a baseline. */

/** Percentile summary of one measured operation, in milliseconds. */
export interface Summary {
  name: string;
  samples: number;
  p50: number;
  p95: number;
  mean: number;
  /** Unit of the samples. */
  unit: string;
}

/** A candidate compared with the baseline measured in the same run. */
export interface Comparison {
  scenario: string;
  baseline: Summary;
  candidate: Summary;
  /** candidate p50 / baseline p50. */
  ratioP50: number;
  /** candidate p95 / baseline p95. */
  ratioP95: number;
  target?: string;
  /** Extra facts printed under the ratios (absolute deltas, memory). */
  notes?: string;
}

function percentile(sorted: number[], fraction: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Summarises raw samples (milliseconds unless `unit` says otherwise). */
export function summarise(name: string, samples: number[], unit = 'ms'): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    name,
    samples: sorted.length,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    mean: total / sorted.length,
    unit,
  };
}

async function time(operation: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await operation();
  return performance.now() - start;
}

/**
 * Runs baseline and candidate alternately (so machine noise hits both alike) after a warm-up,
 * and returns their summaries and ratios.
 */
export async function compare(options: {
  scenario: string;
  iterations: number;
  warmup?: number;
  baseline: { name: string; run: () => Promise<unknown> };
  candidate: { name: string; run: () => Promise<unknown> };
  target?: string;
}): Promise<Comparison> {
  const { iterations, warmup = Math.ceil(iterations / 10), baseline, candidate } = options;
  for (let index = 0; index < warmup; index += 1) {
    await baseline.run();
    await candidate.run();
  }
  const baselineSamples: number[] = [];
  const candidateSamples: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    if (index % 2 === 0) {
      baselineSamples.push(await time(baseline.run));
      candidateSamples.push(await time(candidate.run));
    } else {
      candidateSamples.push(await time(candidate.run));
      baselineSamples.push(await time(baseline.run));
    }
  }
  return comparisonOf(
    options.scenario,
    summarise(baseline.name, baselineSamples),
    summarise(candidate.name, candidateSamples),
    options.target ? { target: options.target } : {},
  );
}

/** A comparison of two summaries measured elsewhere (wall times, throughputs, memory). */
export function comparisonOf(
  scenario: string,
  baseline: Summary,
  candidate: Summary,
  extra: Pick<Comparison, 'target' | 'notes'> = {},
): Comparison {
  return {
    scenario,
    baseline,
    candidate,
    ratioP50: candidate.p50 / baseline.p50,
    ratioP95: candidate.p95 / baseline.p95,
    ...extra,
  };
}

/** Prints one comparison as aligned lines. */
export function printComparison(comparison: Comparison): void {
  const format = (summary: Summary) =>
    `${summary.name.padEnd(44)} p50 ${summary.p50.toFixed(3).padStart(9)} ${summary.unit}  p95 ${summary.p95.toFixed(3).padStart(9)} ${summary.unit}  (n=${summary.samples})`;
  console.log(`\n## ${comparison.scenario}`);
  console.log(`  baseline  ${format(comparison.baseline)}`);
  console.log(`  candidate ${format(comparison.candidate)}`);
  console.log(
    `  ratio     p50 ${comparison.ratioP50.toFixed(2)}x  p95 ${comparison.ratioP95.toFixed(2)}x${comparison.target ? `  (target ${comparison.target})` : ''}`,
  );
  if (comparison.notes) console.log(`  notes     ${comparison.notes}`);
}
