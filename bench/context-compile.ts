// The context compiler's cost, next to its floor: tokenizing the same text once with the
// same tokenizer (js-tiktoken o200k_base, as for gpt-4o, called straight: no memo). Prints
// one JSON line; `memoMs` is the same text counted by the package's (memoized) counter.
// usage: node context-compile.ts full [rounds]   full compile of a 10,000-event run (128k window)
//        node context-compile.ts turns <n>       per-turn compile over an n-turn run, and the
//                                                 manifest-delta journal size
import { createRequire } from "node:module";
import { canonicalJson, type Message, type ToolSpec } from "@yoke/protocol";
import {
  createContextCompiler,
  diffManifest,
  tokenCounterForModel,
  type CompileConfig,
  type ContextInput,
  type Manifest,
  type SourceMessage,
} from "@yoke/context-compiler";
import { median } from "./stats.ts";

const mode = process.argv[2] ?? "full";
const tools: ToolSpec[] = [
  { name: "read_file", description: "Reads a file of the workspace.", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
  { name: "run_tests", description: "Runs the test suite.", inputSchema: { type: "object", properties: {} } },
];
const config: CompileConfig = { model: "gpt-4o", contextWindow: 128_000, maxOutputTokens: 4_096 };
const counter = tokenCounterForModel(config.model);
counter.count("warm up: builds the encoder once, as a long-lived process would");
// The floor's encoder: js-tiktoken itself, resolved from the package that depends on it.
// (Typed structurally: the bench does not depend on js-tiktoken itself.)
const requireTiktoken = createRequire(import.meta.resolve("@yoke/context-compiler"));
const { Tiktoken } = requireTiktoken("js-tiktoken/lite") as {
  Tiktoken: new (ranks: unknown) => { encode(text: string, allowed: string[], disallowed: string[]): number[] };
};
const ranks = requireTiktoken("js-tiktoken/ranks/o200k_base") as { default?: unknown };
const encoder = new Tiktoken(ranks.default ?? ranks);
const straight = { count: (text: string) => encoder.encode(text, [], []).length };

/** `turns` turns of an assistant tool call and its result: 5 events per turn (turn, request, response, tool start, tool end). */
function transcriptOf(turns: number, size: "short" | "long"): SourceMessage[] {
  const out: SourceMessage[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const path = `src/module_${turn % 97}.ts`;
    const assistant: Message = {
      role: "assistant",
      content: [
        ...(size === "long" ? [{ type: "text" as const, text: `Turn ${turn}: reading ${path} to check how the parser handles empty input.` }] : []),
        { type: "tool-call", toolCallId: `call_${turn}`, toolName: "read_file", rawArguments: `{"path":"${path}"}` },
      ],
    };
    const large = size === "long" && turn % 40 === 39;
    const text =
      size === "short"
        ? `ok ${turn}`
        : large
          ? `line ${turn}: export const value = ${turn};\n`.repeat(1_500)
          : `export function parse${turn}(input: string): Node[] {\n  if (input === "") return [];\n  return tokenize(input).map(toNode);\n}\n`;
    const tool: Message = {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: `call_${turn}`,
          toolName: "read_file",
          result: { status: "ok", content: [{ type: "text", text }], timing: { startedAt: turn, endedAt: turn + 1, durationMs: 1 } },
        },
      ],
    };
    out.push({ id: `event:${turn * 5 + 3}`, message: assistant }, { id: `event:${turn * 5 + 5}`, message: tool });
  }
  return out;
}

function inputOf(transcript: readonly SourceMessage[], messages: number): ContextInput {
  return {
    revision: messages * 5,
    systemPrompt: "You are a careful software engineer. Keep changes small and explain them.",
    task: "Find and fix the parser bug on empty input.",
    tools,
    transcript: transcript.slice(0, messages),
    constraints: [{ id: "constraint:no-push", text: "Never push to main." }],
  };
}

/** The floor: tokenizing each rendered message's text once (with `straight`, or another counter). */
function tokenizeOnce(messages: readonly Message[], counter: { count(text: string): number } = straight): number {
  let tokens = 0;
  for (const message of messages) {
    if (message.role === "system") tokens += counter.count(message.content);
    else if (message.role === "user") for (const part of message.content) tokens += part.type === "text" ? counter.count(part.text) : 0;
    else if (message.role === "assistant")
      for (const part of message.content)
        tokens += counter.count(part.type === "tool-call" ? `${part.toolName} ${part.rawArguments}` : "text" in part ? part.text : "");
    else for (const part of message.content) for (const text of part.result.content) tokens += counter.count(text.text);
  }
  return tokens;
}

const ms = (start: number) => performance.now() - start;

if (mode === "full") {
  // 10,000 events: 2,000 turns of 5 events, 4,000 transcript messages.
  const rounds = Number(process.argv[3] ?? "7");
  const cold: number[] = [];
  const warm: number[] = [];
  const again: number[] = [];
  const floor: number[] = [];
  const memo: number[] = [];
  let manifest: Manifest | undefined;
  let compacted = 0;
  // The run is larger than the window: the extractive compaction policy makes it fit.
  const compacting: CompileConfig = { ...config, compaction: { threshold: 0.8 } };
  for (let round = 0; round < rounds; round++) {
    const transcript = transcriptOf(2_000, "short"); // fresh objects: nothing cached
    const compiler = createContextCompiler(compacting);
    let start = performance.now();
    const result = compiler.compile(inputOf(transcript, transcript.length - 1));
    cold.push(ms(start));
    // The floor counts the same rendered text the compiler counted: every message, delimiters included.
    const rendered = createContextCompiler({ ...config, contextWindow: 1_000_000 }).compile(inputOf(transcript, transcript.length - 1)).request.messages;
    // js-tiktoken's own encode is warmed up once, as the compiler's use of it warmed it before.
    if (round === 0) tokenizeOnce(rendered);
    start = performance.now();
    const tokens = tokenizeOnce(rendered);
    floor.push(ms(start));
    start = performance.now();
    if (tokenizeOnce(rendered, counter) !== tokens) throw new Error("the memoized counter disagrees with js-tiktoken");
    memo.push(ms(start));
    compacted = result.manifest.items.filter((item) => item.decision === "compacted").length;
    start = performance.now();
    manifest = compiler.compile({ ...inputOf(transcript, transcript.length), compactions: result.compactions }).manifest;
    warm.push(ms(start));
    start = performance.now();
    compiler.compile({ ...inputOf(transcript, transcript.length), compactions: result.compactions });
    again.push(ms(start));
  }
  console.log(
    JSON.stringify({
      events: 10_000,
      messages: manifest!.messageCount,
      tokens: manifest!.allocation.used,
      compacted,
      coldMs: median(cold),
      warmMs: median(warm),
      againMs: median(again),
      floorMs: median(floor),
      memoMs: median(memo),
    }),
  );
} else {
  const turns = Number(process.argv[3] ?? "200");
  const transcript = transcriptOf(turns, "long");
  // 800 such turns need ~190k tokens: a 1M-token window (gpt-4.1) holds them without compaction.
  const compiler = createContextCompiler({ ...config, model: "gpt-4.1", contextWindow: 1_000_000 });
  const perTurn: number[] = [];
  const floor: number[] = [];
  let previous: Manifest | undefined;
  let deltaBytes = 0;
  let snapshotBytes = 0;
  for (let turn = 1; turn <= turns; turn++) {
    const input = inputOf(transcript, turn * 2);
    let start = performance.now();
    const result = compiler.compile(input);
    perTurn.push(ms(start) * 1_000);
    start = performance.now();
    tokenizeOnce(result.request.messages.slice(-2));
    floor.push(ms(start) * 1_000);
    deltaBytes += Buffer.byteLength(canonicalJson(diffManifest(previous, result.manifest)));
    // A full snapshot per turn, sampled every 10th turn (×10) to keep the bench quick.
    if (turn % 10 === 0) snapshotBytes += 10 * Buffer.byteLength(canonicalJson(result.manifest));
    previous = result.manifest;
  }
  const tail = perTurn.slice(-50);
  console.log(
    JSON.stringify({
      turns,
      tokens: previous!.allocation.used,
      medianTurnUs: median(perTurn),
      tailMedianTurnUs: median(tail),
      floorTurnUs: median(floor.slice(-50)),
      deltaBytes,
      snapshotBytes,
    }),
  );
}
