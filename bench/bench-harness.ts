/** Tiny benchmark harness: interleaved samples, percentiles and ratios against a baseline. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** Percentile summary of one measured operation, in milliseconds. */
export interface Summary {
  name: string;
  samples: number;
  p50: number;
  p95: number;
  mean: number;
  /** Unit of the samples. */
  unit: string;
  /** The best sample (least for times, greatest when higher is better); set by {@link roundsComparison}. */
  best?: number;
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
  /**
   * Best-of-N ratios, set by {@link roundsComparison}: `best` compares each side's best round
   * (noise only slows a run, so the best of N is each side's cleanest measurement), `median` is
   * the median of the per-round ratios (baseline and candidate measured back to back).
   */
  rounds?: { best: number; median: number; n: number };
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

/** Samples of {@link bestOf}, index `i` of both sides from round `i`. */
export interface Rounds<T> {
  baseline: T[];
  candidate: T[];
}

/**
 * Runs `rounds` rounds of one baseline and one candidate sample, alternating which goes first
 * (so a noisy moment, page-cache write-back or a warm cache hits both sides alike), after
 * `warmup` unrecorded rounds. A sample is anything one run measures (see
 * {@link sampleInProcess} for one in a fresh process); {@link roundsComparison} turns two
 * numbers of each into best-of-N and median ratios.
 */
export async function bestOf<T>(options: {
  rounds: number;
  warmup?: number;
  baseline: (round: number) => Promise<T>;
  candidate: (round: number) => Promise<T>;
}): Promise<Rounds<T>> {
  const { rounds, warmup = 0, baseline, candidate } = options;
  const result: Rounds<T> = { baseline: [], candidate: [] };
  for (let round = -warmup; round < rounds; round += 1) {
    const order = round % 2 === 0 ? ['baseline', 'candidate'] : ['candidate', 'baseline'];
    for (const side of order as (keyof Rounds<T>)[]) {
      const sample = await (side === 'baseline' ? baseline : candidate)(round);
      if (round >= 0) result[side].push(sample);
    }
  }
  return result;
}

/**
 * Runs `node <script> ...args` in a fresh process (so its peak RSS, JIT state and heap are its
 * own) and returns the JSON object on the last line of its stdout.
 */
export async function sampleInProcess<T>(script: string, args: string[]): Promise<T> {
  const { stdout } = await promisify(execFile)(process.execPath, [script, ...args], {
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as T;
}

/**
 * A comparison of per-round numbers from {@link bestOf}: p50/p95 of each side plus the
 * best-of-N ratio and the median per-round ratio (candidate / baseline either way, so for
 * throughputs above 1 is better, for times below 1 is).
 */
export function roundsComparison(options: {
  scenario: string;
  baseline: { name: string; samples: number[] };
  candidate: { name: string; samples: number[] };
  unit: string;
  higherIsBetter: boolean;
  target?: string;
  notes?: string;
}): Comparison {
  const { baseline, candidate, unit, higherIsBetter } = options;
  const best = (samples: number[]) =>
    higherIsBetter ? Math.max(...samples) : Math.min(...samples);
  const side = (of: { name: string; samples: number[] }): Summary => ({
    ...summarise(of.name, of.samples, unit),
    best: best(of.samples),
  });
  const perRound = candidate.samples.map((value, index) => value / (baseline.samples[index] ?? 0));
  const comparison = comparisonOf(options.scenario, side(baseline), side(candidate), {
    ...(options.target && { target: options.target }),
    ...(options.notes && { notes: options.notes }),
  });
  return {
    ...comparison,
    rounds: {
      best: best(candidate.samples) / best(baseline.samples),
      median: summarise('ratio', perRound).p50,
      n: perRound.length,
    },
  };
}

/** Prints one comparison as aligned lines. */
export function printComparison(comparison: Comparison): void {
  const format = (summary: Summary) =>
    `${summary.name.padEnd(44)}${summary.best === undefined ? '' : ` best ${summary.best.toFixed(3).padStart(9)} ${summary.unit}`} p50 ${summary.p50.toFixed(3).padStart(9)} ${summary.unit}  p95 ${summary.p95.toFixed(3).padStart(9)} ${summary.unit}  (n=${summary.samples})`;
  console.log(`\n## ${comparison.scenario}`);
  console.log(`  baseline  ${format(comparison.baseline)}`);
  console.log(`  candidate ${format(comparison.candidate)}`);
  const { rounds } = comparison;
  const bestOfN = rounds
    ? `best-of-${rounds.n} ${rounds.best.toFixed(2)}x  median round ${rounds.median.toFixed(2)}x  `
    : '';
  console.log(
    `  ratio     ${bestOfN}p50 ${comparison.ratioP50.toFixed(2)}x  p95 ${comparison.ratioP95.toFixed(2)}x${comparison.target ? `  (target ${comparison.target})` : ''}`,
  );
  if (comparison.notes) console.log(`  notes     ${comparison.notes}`);
}
