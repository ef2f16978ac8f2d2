/**
 * An agent browses a web page with a table of numbers, sums the numbers with Python and
 * finishes. The page is served on loopback by this script; the browser (headless Chromium) and
 * the IPython kernel are runtime plugins:
 *
 * - by default the workspace is a `LocalWorkspace` in a temporary directory, and the conversation
 *   starts local plugins for the tools that need them (and closes them with it);
 * - with `--remote`, the same agent runs on an in-process agent-server started with
 *   `plugins: ['browser', 'python']`, reached through a `RemoteWorkspace`.
 *
 * The agent runs a script (`ScriptedLLM`), not a model: no key needed. Needs Chromium
 * (`apt-get install chromium`) and IPython (`apt-get install python3-ipykernel`); a missing one
 * is reported in the tool's observation.
 *
 * Run: pnpm --filter @agent-workspace/example-browse-and-compute start [-- --remote]
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAgentServer } from '@agent-workspace/agent-server';
import { LocalWorkspace, RemoteWorkspace, type Workspace } from '@agent-workspace/core';
import { Agent, Conversation, ScriptedLLM } from '@agent-workspace/sdk';

const remote = process.argv.includes('--remote');
const PAGE = `<!doctype html>
<html><head><title>Monthly orders</title></head>
<body>
  <h1>Monthly orders</h1>
  <table>
    <tr><th>month</th><th>orders</th></tr>
    <tr><td>January</td><td class="value">12</td></tr>
    <tr><td>February</td><td class="value">30</td></tr>
    <tr><td>March</td><td class="value">7</td></tr>
    <tr><td>April</td><td class="value">51</td></tr>
  </table>
</body></html>`;

const site = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(PAGE);
});
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;

// What the "model" does: look at the page, then let Python read and sum its numbers.
const llm = new ScriptedLLM({
  script: [
    { toolCalls: [{ name: 'browser', arguments: { code: `goto(${JSON.stringify(url)})` } }] },
    {
      toolCalls: [
        {
          name: 'execute_ipython_cell',
          arguments: {
            code: [
              'import re, urllib.request',
              `html = urllib.request.urlopen(${JSON.stringify(url)}).read().decode()`,
              'orders = [int(v) for v in re.findall(r\'<td class="value">(\\d+)</td>\', html)]',
              'print(f"{len(orders)} months, {sum(orders)} orders in all")',
            ].join('\n'),
          },
        },
      ],
    },
    {
      toolCalls: [
        { name: 'finish', arguments: { message: 'Summed the orders of the table with Python.' } },
      ],
    },
  ],
});
const agent = new Agent({ llm, tools: ['BrowserTool', 'IPythonTool'] });

const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'browse-and-compute-')));
const apiKey = randomBytes(16).toString('hex');
const server = remote
  ? await createAgentServer({
      port: 0,
      workingDir: dir,
      sessionApiKeys: [apiKey],
      plugins: ['browser', 'python'],
      logLevel: 'warn',
    })
  : undefined;
const workspace: Workspace = server
  ? new RemoteWorkspace({ host: server.url, workingDir: dir, apiKey })
  : new LocalWorkspace({ workingDir: dir });
console.log(`${remote ? `agent-server at ${server?.url}` : 'local plugins'}, page at ${url}`);

try {
  await using conversation = await Conversation({ agent, workspace });
  await conversation.sendMessage(`How many orders does the table at ${url} list in all?`);
  const status = await conversation.run();
  let step = 0;
  for (const event of conversation.events) {
    if (event.kind === 'ActionEvent') {
      step += 1;
      const args = JSON.parse(event.tool_call.arguments) as Record<string, string>;
      const shown = (args.code ?? args.message ?? '').split('\n').at(-1);
      console.log(`${step}. ${event.tool_name}: ${shown}`);
    } else if (event.kind === 'ObservationEvent') {
      const text = event.observation.content
        .map((part) => ('text' in part ? part.text : ''))
        .join('');
      const lines = text.split('\n');
      if (event.tool_name === 'browser') {
        // What the model read: the page's header lines and the table cells of its tree.
        console.log(
          `   ${lines.filter((line) => /^\[(Current URL|Page title)/.test(line)).join(' ')}`,
        );
        const cells = lines.flatMap((line) => /\bcell '([^']*)'/.exec(line)?.[1] ?? []);
        console.log(`   table cells: ${cells.join(', ')}`);
      } else if (event.tool_name === 'execute_ipython_cell') {
        console.log(`   output: ${lines[0]}`);
      }
    } else if (event.kind === 'AgentErrorEvent') {
      console.log(`     error: ${event.error}`);
    }
  }
  console.log(`status: ${status}; the agent said: ${await conversation.agentFinalResponse()}`);
} finally {
  await workspace.close();
  await server?.close();
  site.closeAllConnections();
  site.close();
  await rm(dir, { recursive: true, force: true });
}
