// A long-lived compiler caches every rendering by what it depends on (compiler.ts's
// entryCaches and digest checkpoint, layout.ts's extension check). The other tests change
// only the turn and the evidence between compiles; here everything an input may change from
// one compile to the next does (system prompt, task, so the delimiter nonce; constraints;
// remote tools; tool revisions; a source's trust or id with the same message object; another
// message under the same id; a compaction in effect), and each result must equal a fresh
// compile's. Written against hand-applied mutants that
// dropped one part of a cache key each (issue 17).
import fc from "fast-check";
import type { Message } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { CONFIG, TOOLS, inputAt, makeTranscript } from "./__fixtures__/runs.js";
import { sha256Hex } from "./artifacts.js";
import {
  compile,
  createContextCompiler,
  estimatedTokenCounter,
  type CompileConfig,
  type CompileResult,
  type ContextInput,
  type ContextRevision,
  type EvidenceItem,
  type SourceMessage,
} from "./index.js";

const FAST: CompileConfig = { ...CONFIG, tokenCounter: estimatedTokenCounter(), toolOutputBudgets: { read_file: 1_000 } };
/** A fixed nonce: a new system prompt or task then changes no delimiter, only its own text. */
const SEEDED: CompileConfig = { ...FAST, delimiterSeed: "run-42" };
const TURNS = 6;
// Every third result is cut to its budget, so truncation notes and artifacts are in play.
const transcript = makeTranscript(TURNS, { largeEvery: 3, largeBytes: 3_000 });

const SYSTEM_PROMPTS = ["You are a careful software engineer.", "You are terse.", undefined] as const;
const TASKS = ["Find and fix the failing test.", "Rename module_1 to module_one."] as const;
const CONSTRAINTS = [
  [{ id: "constraint:no-push", text: "Never push to main." }],
  [{ id: "constraint:no-push", text: "Never push to any branch." }],
  [],
] as const;
const SUMMARY = "Read src/module_0.ts: it exports f0.";
/** Replaces the first call and its result (event ids only: under positional ids it replaces nothing). */
const COMPACTION: ContextRevision = {
  revision: 1,
  parent: 0,
  replaces: ["event:3", "event:5"],
  summary: SUMMARY,
  summaryHash: sha256Hex(SUMMARY),
  trust: "tool_output",
  summarizer: "extractive",
};
/** Another message under the id of the first tool result (a rewound or repaired state). */
const EDITED: Message = {
  role: "tool",
  content: [
    {
      type: "tool-result",
      toolCallId: "call_0",
      toolName: "read_file",
      result: { status: "error", content: [{ type: "text", text: "ENOENT: src/module_0.ts" }], timing: { startedAt: 0, endedAt: 1, durationMs: 1 } },
    },
  ],
};
// The same objects from one input to the next, as a caller holding its run's tools passes them.
const REMOTE = ["run_tests"];
const REVISIONS = { read_file: "sha256:rev-read-file" };
const EVIDENCE: EvidenceItem[] = [{ id: "doc:readme", kind: "evidence", text: "README: run `pnpm test` to test.", priority: 5 }];

interface Step {
  readonly turn: number;
  readonly systemPrompt: number;
  readonly task: number;
  readonly constraints: number;
  readonly remote: boolean;
  readonly revisions: boolean;
  /** 0: default trust; 1: the tool results labelled `retrieved`; 2: the assistant messages labelled `tool_output`. */
  readonly trust: 0 | 1 | 2;
  /** Positional ids (`message:<n>`, as contextInputFromRunState gives) instead of event ids, for the same message objects. */
  readonly positional: boolean;
  readonly evidence: boolean;
  /** The first tool result replaced by another message object under the same id. */
  readonly edited: boolean;
  readonly compacted: boolean;
}

const stepArbitrary: fc.Arbitrary<Step> = fc.record({
  turn: fc.integer({ min: 0, max: TURNS }),
  systemPrompt: fc.integer({ min: 0, max: SYSTEM_PROMPTS.length - 1 }),
  task: fc.integer({ min: 0, max: TASKS.length - 1 }),
  constraints: fc.integer({ min: 0, max: CONSTRAINTS.length - 1 }),
  remote: fc.boolean(),
  revisions: fc.boolean(),
  trust: fc.constantFrom(0 as const, 1 as const, 2 as const),
  positional: fc.boolean(),
  evidence: fc.boolean(),
  edited: fc.boolean(),
  compacted: fc.boolean(),
});

/** New source objects around the same message objects, as a caller re-deriving its input would make. */
function sourcesOf(step: Step): SourceMessage[] {
  return transcript.slice(0, step.turn * 2).map((source, index): SourceMessage => {
    const id = step.positional ? `message:${index + 1}` : source.id;
    const message = step.edited && index === 1 ? EDITED : source.message;
    if (step.trust === 1 && message.role === "tool") return { id, message, trust: "retrieved" };
    if (step.trust === 2 && message.role === "assistant") return { id, message, trust: "tool_output" };
    return { id, message };
  });
}

function inputOf(step: Step): ContextInput {
  const base = inputAt(transcript, step.turn, {
    task: TASKS[step.task]!,
    tools: TOOLS,
    transcript: sourcesOf(step),
    constraints: CONSTRAINTS[step.constraints]!.slice(),
    ...(step.remote ? { remoteTools: REMOTE } : {}),
    ...(step.revisions ? { toolRevisions: REVISIONS } : {}),
    ...(step.evidence ? { evidence: EVIDENCE } : {}),
    ...(step.compacted ? { compactions: [COMPACTION] } : {}),
  });
  const systemPrompt = SYSTEM_PROMPTS[step.systemPrompt];
  if (systemPrompt === undefined) {
    const { systemPrompt: _dropped, ...rest } = base;
    return rest;
  }
  return { ...base, systemPrompt };
}

/** Every delimiter of the request carries the context's nonce (a stale cache would keep an earlier one). */
function expectOneNonce(result: CompileResult): void {
  const nonces = new Set([...result.bytes.matchAll(/\u27E6\/?data:([^ \u27E7]*)/g)].map((match) => match[1]));
  expect([...nonces]).toEqual([result.manifest.delimiterNonce]);
}

describe("a long-lived compiler's caches", () => {
  it.each([
    ["its nonce from the task and system prompt", FAST],
    ["a seeded nonce", SEEDED],
  ])("give a fresh compile's result whatever changes between compiles (%s)", (_label, config) => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { minLength: 2, maxLength: 8 }), (steps) => {
        const compiler = createContextCompiler(config);
        for (const step of steps) {
          const input = inputOf(step);
          const incremental = compiler.compile(input);
          const fresh = compile(input, config);
          expect(incremental.bytes).toBe(fresh.bytes);
          expect(incremental.manifest).toEqual(fresh.manifest);
          expect(incremental.request).toEqual(fresh.request);
          expect(incremental.artifacts).toEqual(fresh.artifacts);
          expectOneNonce(incremental);
        }
      }),
      { numRuns: 40 },
    );
  });

  // Named pairs: each changes one thing from the first compile to the second.
  const first: Step = {
    turn: 4,
    systemPrompt: 0,
    task: 0,
    constraints: 0,
    remote: false,
    revisions: false,
    trust: 0,
    positional: false,
    evidence: false,
    edited: false,
    compacted: false,
  };
  // [what changes, the change, what both compiles share besides `first`]
  it.each<[string, Partial<Step>, Partial<Step>?]>([
    ["the system prompt (and so the nonce)", { systemPrompt: 1 }],
    ["no system prompt", { systemPrompt: 2 }],
    ["the task (and so the nonce)", { task: 1 }],
    ["a constraint's text", { constraints: 1 }],
    ["no constraints", { constraints: 2 }],
    ["a tool becomes remote", { remote: true }],
    ["a tool revision", { revisions: true }],
    ["a tool result's trust", { trust: 1 }],
    ["an assistant message's trust", { trust: 2 }],
    ["the sources' ids", { positional: true }],
    ["a longer transcript with the sources' ids changed", { turn: 6, positional: true }],
    ["another message under a source's id", { edited: true }],
    ["a longer transcript with another message under a source's id", { turn: 6, edited: true }],
    ["a compaction in effect", { compacted: true }],
    ["a compacted tool result's trust", { trust: 1 }, { compacted: true }],
    ["the task under a compaction (so the summary's nonce)", { task: 1 }, { compacted: true }],
  ])("give a fresh compile's result after a change of %s", (_label, change, shared = {}) => {
    for (const config of [FAST, SEEDED]) {
      const compiler = createContextCompiler(config);
      compiler.compile(inputOf({ ...first, ...shared }));
      const input = inputOf({ ...first, ...shared, ...change });
      const incremental = compiler.compile(input);
      const fresh = compile(input, config);
      expect(incremental.bytes).toBe(fresh.bytes);
      expect(incremental.manifest).toEqual(fresh.manifest);
      expect(incremental.request).toEqual(fresh.request);
      expectOneNonce(incremental);
    }
  });

  // Mutants layout.ts:122 (compaction lists of the same length taken as the same) and :260
  // (the layout keeping the caller's array, which the caller then changes in place).
  it("rebuild the layout for another compaction list of the same length, even the same array changed in place", () => {
    const wider: ContextRevision = { ...COMPACTION, replaces: ["event:3", "event:5", "event:8", "event:10"] };
    const compiler = createContextCompiler(FAST);
    const compactions = [COMPACTION];
    compiler.compile({ ...inputOf(first), compactions });
    const check = (list: ContextRevision[]) => {
      const input = { ...inputOf(first), compactions: list };
      const incremental = compiler.compile(input);
      expect(incremental.bytes).toBe(compile(input, FAST).bytes);
      expect(incremental.manifest).toEqual(compile(input, FAST).manifest);
    };
    check([wider]);
    check(compactions);
    compactions[0] = wider;
    check(compactions);
    // Two lists that differ only in their second revision (Stryker's `some` as `every`).
    const later: ContextRevision = { ...COMPACTION, revision: 2, parent: 1, replaces: ["event:13", "event:15"] };
    check([wider, later]);
    check([wider, { ...later, replaces: ["event:13", "event:15", "event:18", "event:20"] }]);
  });

  // Stryker's layout.ts:132 survivors `before.message === now.message` and `before.trust ===
  // now.trust`: with the caller's source objects reused (as contextInputFromRunState does)
  // and one replaced, the layout was extended over the replaced one.
  it("rebuild the layout when one reused source is replaced by another message or another trust", () => {
    const sources = transcript.slice(0, 8);
    for (const replaced of [
      { id: sources[1]!.id, message: EDITED },
      { ...sources[1]!, trust: "retrieved" as const },
    ]) {
      const compiler = createContextCompiler(FAST);
      compiler.compile(inputAt(transcript, 4, { transcript: sources }));
      const input = inputAt(transcript, 4, { transcript: [sources[0]!, replaced, ...sources.slice(2)] });
      const incremental = compiler.compile(input);
      expect(incremental.bytes).toBe(compile(input, FAST).bytes);
      expect(incremental.manifest).toEqual(compile(input, FAST).manifest);
    }
  });

  // layout.ts keeps summaries and compacted items in module-wide caches (by revision object),
  // which a fresh compile shares: these check the result itself, not only fresh = long-lived.
  it("label a compacted item with its source's trust, whatever an earlier compile labelled it", () => {
    const compacted = (trust: Step["trust"]) =>
      compile(inputOf({ ...first, compacted: true, trust }), FAST).manifest.items.find((item) => item.id === "event:5")!;
    expect(compacted(0)).toMatchObject({ decision: "compacted", trust: "tool_output" });
    expect(compacted(1)).toMatchObject({ decision: "compacted", trust: "retrieved" });
  });

  it("place a summary at its own message, whatever an earlier compile placed it at", () => {
    const later: ContextRevision = { ...COMPACTION, revision: 2, parent: 1, replaces: ["event:8", "event:10"] };
    const at = (compactions: ContextRevision[]) => {
      const { request, manifest } = compile({ ...inputOf(first), compactions }, FAST);
      const item = manifest.items.find((entry) => entry.id === "summary:2")!;
      const message = request.messages[item.message!]!;
      return { index: item.message, text: message.role === "user" && message.content[0]!.type === "text" ? message.content[0]!.text : "" };
    };
    const both = at([COMPACTION, later]);
    const alone = at([later]);
    expect(both.index).toBe(3);
    expect(alone.index).toBe(4);
    for (const { text } of [both, alone]) expect(text).toContain("summary of 2 earlier items (event:8 … event:10)");
  });
});
