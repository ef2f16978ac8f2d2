// Adds up the vitest JSON reports in .test-results/ and prints one closing line.
// Under CI=true a skipped test is a failure: CI must run every suite.
import { readdir, readFile } from 'node:fs/promises';

const dir = new URL('../.test-results/', import.meta.url);
const names = (await readdir(dir).catch(() => [])).filter((name) => name.endsWith('.json'));
const reports = [];
for (const name of names) {
  const report = JSON.parse(await readFile(new URL(name, dir), 'utf8'));
  // Other JSON there (the reliability suite's figures) is no vitest report.
  if (typeof report.numTotalTests === 'number') reports.push(report);
}
let passed = 0;
let failed = 0;
let skipped = 0;
for (const report of reports) {
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
}
console.log(`\nTests (${reports.length} suites):`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
if (reports.length === 0 || passed === 0) {
  console.error('no test ran');
  process.exit(1);
}
if (failed > 0) process.exit(1);
if (skipped > 0 && process.env.CI === 'true') {
  console.error(`${skipped} tests were skipped; under CI=true every suite must run`);
  process.exit(1);
}
