import type { Workspace } from '@agent-workspace/core';
import type { ScriptedStep } from '@agent-workspace/sdk';

/** What the user asks the agent. */
export const DEMO_TASK =
  'Write stats.js exporting mean(numbers), with a test stats.test.js; run the test, and fix the code until it passes.';

/** The final answer of the scripted run. */
export const DEMO_FINAL_MESSAGE =
  'stats.js exports mean(); its test failed on an off-by-one in the loop, which I fixed. The test passes now.';

/** stats.js as first written: the loop skips the first number. */
const BUGGY_STATS = `/** The arithmetic mean of \`numbers\`. */
function mean(numbers) {
  let sum = 0;
  for (let i = 1; i < numbers.length; i++) sum += numbers[i];
  return sum / numbers.length;
}

module.exports = { mean };
`;

const STATS_TEST = `const assert = require('node:assert');
const { mean } = require('./stats.js');

assert.strictEqual(mean([1, 2, 3]), 2);
assert.strictEqual(mean([5]), 5);
console.log('all tests passed');
`;

/**
 * The scripted model's answers for {@link DEMO_TASK} in `workingDir`: plan, write the code and
 * its test, run the test and see it fail, fix the loop with `file_editor`, run it again, finish.
 */
export function demoScript(workingDir: string): ScriptedStep[] {
  const file = (name: string): string => `${workingDir.replace(/\/$/, '')}/${name}`;
  return [
    {
      text: 'I will plan the work first.',
      toolCalls: [
        {
          name: 'task_tracker',
          arguments: {
            command: 'plan',
            task_list: [
              { title: 'Write stats.js and its test', status: 'in_progress' },
              { title: 'Run the test and fix what fails', status: 'todo' },
            ],
          },
        },
      ],
    },
    {
      toolCalls: [
        {
          name: 'file_editor',
          arguments: { command: 'create', path: file('stats.js'), file_text: BUGGY_STATS },
        },
      ],
    },
    {
      toolCalls: [
        {
          name: 'file_editor',
          arguments: { command: 'create', path: file('stats.test.js'), file_text: STATS_TEST },
        },
      ],
    },
    {
      text: 'Now the test.',
      toolCalls: [{ name: 'terminal', arguments: { command: 'node stats.test.js' } }],
    },
    {
      text: 'mean([1, 2, 3]) is wrong: the loop starts at 1 and skips the first number.',
      toolCalls: [
        {
          name: 'file_editor',
          arguments: {
            command: 'str_replace',
            path: file('stats.js'),
            old_str: 'let i = 1;',
            new_str: 'let i = 0;',
          },
        },
      ],
    },
    { toolCalls: [{ name: 'terminal', arguments: { command: 'node stats.test.js' } }] },
    { toolCalls: [{ name: 'finish', arguments: { message: DEMO_FINAL_MESSAGE } }] },
  ];
}

/** Makes the working directory a git repository with one commit, so the run shows as changes. */
export async function prepareRepository(workspace: Workspace): Promise<void> {
  const result = await workspace.executeCommand(
    [
      'git init -q',
      'git config user.email demo@agent-workspace.invalid',
      'git config user.name demo',
      'printf "# stats\\n" > README.md',
      'git add README.md',
      'git commit -q -m "start"',
    ].join(' && '),
  );
  if (result.exitCode !== 0) {
    throw new Error(`could not prepare the demo repository: ${result.stderr || result.stdout}`);
  }
}
