import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the suite writes its figures (next to the vitest JSON reports). */
export const FIGURES_FILE = fileURLToPath(
  new URL('../../../../.test-results/reliability-figures.json', import.meta.url),
);

/** What one scenario did to the server and what came of it. */
export interface ScenarioFigures {
  scenario: string;
  /** Hostile or careless requests, connections or frames sent. */
  tried: number;
  /** Of those, how many the server refused or cut as the contract says (4xx, 429/503, close). */
  rejected: number;
  /**
   * Of those, how many got past the server's defences: a confined path that reached outside, a
   * malformed request answered 2xx/5xx or dropped, a crash. Must be 0.
   */
  escapes: number;
  /** Largest resident set of the server process(es) seen during the scenario, in bytes. */
  peakRssBytes: number;
  /** A figure worth reading beside the counts (a bound, a size). */
  note?: string;
}

interface FiguresFile {
  scenarios: ScenarioFigures[];
}

/** Counts of one scenario; `save()` merges them into {@link FIGURES_FILE}. */
export class Figures implements ScenarioFigures {
  readonly scenario: string;
  tried = 0;
  rejected = 0;
  escapes = 0;
  peakRssBytes = 0;
  note: string | undefined;

  constructor(scenario: string) {
    this.scenario = scenario;
  }

  /** Takes a server's peak RSS into account. */
  observeRss(bytes: number): void {
    if (bytes > this.peakRssBytes) this.peakRssBytes = bytes;
  }

  /** Writes (or replaces) this scenario's line in the figures file. */
  save(): void {
    const file = readFigures();
    const entry: ScenarioFigures = {
      scenario: this.scenario,
      tried: this.tried,
      rejected: this.rejected,
      escapes: this.escapes,
      peakRssBytes: this.peakRssBytes,
      ...(this.note === undefined ? {} : { note: this.note }),
    };
    const index = file.scenarios.findIndex((line) => line.scenario === this.scenario);
    if (index >= 0) file.scenarios[index] = entry;
    else file.scenarios.push(entry);
    mkdirSync(path.dirname(FIGURES_FILE), { recursive: true });
    writeFileSync(FIGURES_FILE, `${JSON.stringify(file, null, 2)}\n`);
  }
}

/** The figures written so far. */
export function readFigures(): FiguresFile {
  try {
    return JSON.parse(readFileSync(FIGURES_FILE, 'utf8')) as FiguresFile;
  } catch {
    return { scenarios: [] };
  }
}

/** The figures as one compact table. */
export function formatFigures(file: FiguresFile): string {
  const mib = (bytes: number) => (bytes > 0 ? `${Math.round(bytes / 1024 ** 2)} MiB` : '-');
  const rows = [
    ['scenario', 'tried', 'rejected', 'escapes', 'peak RSS', 'note'],
    ...file.scenarios.map((line) => [
      line.scenario,
      String(line.tried),
      String(line.rejected),
      String(line.escapes),
      mib(line.peakRssBytes),
      line.note ?? '',
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) =>
          column === 0 || column === 5
            ? cell.padEnd(widths[column]!)
            : cell.padStart(widths[column]!),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
