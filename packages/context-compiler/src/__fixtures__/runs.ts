// Synthetic runs for tests and the bench: each turn is an assistant message with a tool call
// and the tool message with its result. Message objects are built once, as the run-state fold
// builds them, so a compiler's caches see the same objects turn after turn.
import type { Message, ToolSpec } from "@yoke/protocol";
import type { CompileConfig, ContextInput, SourceMessage } from "../input.js";

export const TOOLS: ToolSpec[] = [
  {
    name: "read_file",
    description: "Reads a file of the workspace.",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  { name: "run_tests", description: "Runs the test suite and returns its output.", inputSchema: { type: "object", properties: {} } },
];

export const CONFIG: CompileConfig = { model: "gpt-4o", contextWindow: 128_000, maxOutputTokens: 4_096 };

export interface RunOptions {
  /** Every n-th tool result is large (cut to its budget); 0 for none. */
  readonly largeEvery?: number;
  readonly largeBytes?: number;
}

/** 2 transcript messages per turn; ids are `event:<seq>` with 5 events per turn. */
export function makeTranscript(turns: number, options: RunOptions = {}): SourceMessage[] {
  const transcript: SourceMessage[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const callId = `call_${turn}`;
    const assistant: Message = {
      role: "assistant",
      content: [
        { type: "text", text: `Turn ${turn}: I will look at src/module_${turn % 37}.ts next.` },
        {
          type: "tool-call",
          toolCallId: callId,
          toolName: "read_file",
          rawArguments: `{"path":"src/module_${turn % 37}.ts"}`,
          arguments: { path: `src/module_${turn % 37}.ts` },
        },
      ],
    };
    const large = options.largeEvery !== undefined && options.largeEvery > 0 && turn % options.largeEvery === options.largeEvery - 1;
    const text = large
      ? `line ${turn}: export const value = ${turn};\n`.repeat(Math.ceil((options.largeBytes ?? 40_000) / 32))
      : `export function f${turn}(x: number): number {\n  return x * ${turn};\n}\n`;
    const tool: Message = {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: callId,
          toolName: "read_file",
          result: { status: "ok", content: [{ type: "text", text }], timing: { startedAt: turn, endedAt: turn + 1, durationMs: 1 } },
        },
      ],
    };
    transcript.push({ id: `event:${turn * 5 + 3}`, message: assistant }, { id: `event:${turn * 5 + 5}`, message: tool });
  }
  return transcript;
}

export function inputAt(transcript: readonly SourceMessage[], turn: number, extra: Partial<ContextInput> = {}): ContextInput {
  return {
    revision: turn * 5 + 1,
    systemPrompt: "You are a careful software engineer.",
    task: "Find and fix the failing test.",
    tools: TOOLS,
    transcript: transcript.slice(0, turn * 2),
    constraints: [{ id: "constraint:no-push", text: "Never push to main." }],
    ...extra,
  };
}
