import { describeDemoFailure } from './describe-demo-failure.js';
import type { DemoOutcome } from './run-demo.js';

/** Options of {@link printDemoOutcome}. */
export interface PrintDemoOutcomeOptions {
  /** Where the model is called, named in a failure line. */
  modelUrl: string;
  /** Receives each line of standard output. */
  print: (line: string) => void;
  /** Receives the failure line (standard error). */
  printError: (line: string) => void;
}

/**
 * Prints how the run ended (status, answer, changes, test) and, when the task was not done, one
 * line naming the cause; resolves to the exit status, 0 or 1.
 */
export function printDemoOutcome(outcome: DemoOutcome, options: PrintDemoOutcomeOptions): number {
  const { print } = options;
  print('');
  print(
    `status:  ${outcome.status} (agent loop: ${outcome.loop === 'local' ? 'this process' : 'the agent-server'})`,
  );
  if (outcome.result) {
    const { changes, testOutput } = outcome.result;
    print(`answer:  ${outcome.finalMessage}`);
    print(`changes: ${changes.map((change) => `${change.status} ${change.path}`).join(', ')}`);
    print(`test:    ${testOutput}`);
  }
  if (outcome.failure === undefined) return 0;
  options.printError(
    `demo: ${describeDemoFailure(outcome.failure, { modelUrl: options.modelUrl })}`,
  );
  return 1;
}
