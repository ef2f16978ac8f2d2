import { Agent, type AgentOptions, ScriptedLLM } from '@agent-workspace/sdk';

const options: AgentOptions = { llm: new ScriptedLLM({ script: [] }), tools: ['TerminalTool'] };
export const agent = new Agent(options);
