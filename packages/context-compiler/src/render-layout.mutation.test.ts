// render.ts and layout.ts outside the ranges measured before (issue 17, session of 2026-12-03,
// second): the system and task messages, default trust, tool output with several parts or none,
// what a message's token count reads, a remote tool's delimiters, the request header's members,
// the summary cache's key, and a long-lived compiler after a compile that threw half-way. Each
// test was written against the Stryker survivors named in it (applied by hand: it fails on each).
import type { Message, ToolResultEnvelope } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { CONFIG, TOOLS, inputAt, makeTranscript } from "./__fixtures__/runs.js";
import { sha256Hex } from "./artifacts.js";
import {
  compactContext,
  compile,
  createContextCompiler,
  estimatedTokenCounter,
  forkContext,
  type CompileConfig,
  type ContextInput,
  type ContextRevision,
  type SourceMessage,
} from "./index.js";
import { trustRule } from "./trust.js";

const COUNTER = estimatedTokenCounter();
const FAST: CompileConfig = { ...CONFIG, tokenCounter: COUNTER };
const TIMING = { startedAt: 0, endedAt: 1, durationMs: 1 };

function inputOf(transcript: SourceMessage[], extra: Partial<ContextInput> = {}): ContextInput {
  return { revision: 9, systemPrompt: "You are careful.", task: "Fix the test.", tools: [], transcript, ...extra };
}

const toolMessage = (...results: ToolResultEnvelope[]): Message => ({
  role: "tool",
  content: results.map((result, index) => ({ type: "tool-result", toolCallId: `c${index}`, toolName: "run_tests", result })),
});
const texts = (...parts: string[]): ToolResultEnvelope => ({ status: "ok", content: parts.map((text) => ({ type: "text", text })), timing: TIMING });

describe("the fixed messages", () => {
  // render.ts:133 (the heading as ""), :139 (constraints never shown, their block as [] or joined
  // with ""), :140 (blocks joined with ""), :144 (the task message with no content).
  it("show the system prompt, the trust rule and the pinned constraints, then the task", () => {
    const constraints = [
      { id: "constraint:no-push", text: "Never push to main." },
      { id: "constraint:tests", text: "Keep the tests green." },
    ];
    const { request, manifest } = compile(inputOf([], { constraints }), FAST);
    expect(request.messages[0]).toEqual({
      role: "system",
      content: `You are careful.\n\n${trustRule(manifest.delimiterNonce)}\n\nPinned constraints (they always apply):\n- [constraint:no-push] Never push to main.\n- [constraint:tests] Keep the tests green.`,
    });
    expect(request.messages[1]).toEqual({ role: "user", content: [{ type: "text", text: "Fix the test." }] });
  });
});

describe("a transcript message without a trust label", () => {
  // render.ts:23 (no coverage) and :25: the `system` and `user` cases of defaultTrust dropped.
  it("is trusted as its role: system, user, model", () => {
    const transcript: SourceMessage[] = [
      { id: "event:3", message: { role: "system", content: "Budget is low." } },
      { id: "event:4", message: { role: "user", content: [{ type: "text", text: "Go on." }] } },
      { id: "event:5", message: { role: "assistant", content: [{ type: "text", text: "On it." }] } },
    ];
    const { request, manifest } = compile(inputOf(transcript), FAST);
    const items = manifest.items.filter((item) => item.section === "transcript");
    expect(items.map((item) => [item.id, item.trust])).toEqual([
      ["event:3", "system"],
      ["event:4", "user"],
      ["event:5", "model"],
    ]);
    expect(request.messages.slice(2)).toEqual(transcript.map((source) => source.message));
  });
});

describe("a tool result", () => {
  const shownText = (result: ToolResultEnvelope): string => {
    const { request } = compile(inputOf([{ id: "event:5", message: toolMessage(result) }]), FAST);
    const message = request.messages.at(-1)!;
    return message.role === "tool" ? message.content[0]!.result.content[0]!.text : "";
  };

  // render.ts:37 (several text parts shown as the structured output, joined with "", or as undefineds).
  it("with several text parts shows them one a line", () => {
    expect(shownText(texts("3 passed", "1 failed"))).toMatch(/⟧\n3 passed\n1 failed\n⟦/);
  });

  // render.ts:38 (no text and no structured output shown as "Stryker was here!", or as canonical JSON of undefined).
  it("with neither text nor structured output shows nothing between its delimiters", () => {
    expect(shownText({ status: "ok", content: [], timing: TIMING })).toMatch(/⟧\n\n⟦/);
  });
});

describe("a message's token count", () => {
  const tokensOf = (message: Message): number =>
    compile(inputOf([{ id: "event:3", message }]), FAST).manifest.items.find((item) => item.id === "event:3")!.tokens;
  const words = Array.from({ length: 12 }, (_, index) => `w${index}`);

  // render.ts:185 (a user message's case dropped) and :186 (its parts joined with "").
  it("reads a user message's parts one a line", () => {
    expect(tokensOf({ role: "user", content: words.map((text) => ({ type: "text", text })) })).toBe(COUNTER.count(words.join("\n")));
  });

  // render.ts:206 (several results: only the first read, or joined with "") and :212 (a result's
  // several text parts: only the first read, joined with "", or as undefineds). A compiled result
  // has one text part (its wrapped text), so this reads a raw one: a tool message shared with a fork.
  it("reads each result of a tool message, and each of its text parts, one a line", () => {
    const message = toolMessage(texts(...words.slice(0, 6)), texts(...words.slice(6)));
    const parent = inputOf([{ id: "event:3", message }]);
    const { input } = forkContext({ input: parent, manifest: compile(parent, FAST).manifest }, { task: "Look again.", share: ["event:3"] });
    expect(input.evidence![0]!.text).toBe(`run_tests ok ${words.slice(0, 6).join("\n")}\nrun_tests ok ${words.slice(6).join("\n")}`);
  });
});

describe("a remote tool", () => {
  // render.ts:177 (its description wrapped with an empty source).
  it("has its description wrapped as data from that tool", () => {
    const { request, manifest } = compile(inputAt(makeTranscript(1), 1, { remoteTools: ["run_tests"] }), FAST);
    const nonce = manifest.delimiterNonce;
    expect(request.tools.find((tool) => tool.name === "run_tests")!.description).toBe(
      `⟦data:${nonce} trust="remote_tool_description" source="tool:run_tests"⟧\n${TOOLS[1]!.description}\n⟦/data:${nonce}⟧`,
    );
  });
});

describe("the request", () => {
  // render.ts:233, :234, :237, :238 (toolChoice, temperature, providerOptions, responseFormat set to undefined when not configured).
  it("has no member for a request option the config does not set", () => {
    const { request } = compile(inputOf([]), FAST);
    expect(Object.keys(request).sort()).toEqual(["maxOutputTokens", "messages", "stablePrefixMessages", "tools"]);
  });
});

/** The run's first compaction: `summary` in place of event:3 and event:4. */
function firstSummary(summary: string): ContextRevision {
  return { revision: 1, parent: 0, replaces: ["event:3", "event:4"], summary, summaryHash: sha256Hex(summary), trust: "user", summarizer: "extractive" };
}

describe("a summary compiled again with another estimate", () => {
  // layout.ts:84 (`counter.charsPerToken ?? ""` as `&& ""`: the summary cache keyed without the estimate).
  it("is counted again", () => {
    const transcript: SourceMessage[] = ["event:3", "event:4"].map((id) => ({ id, message: { role: "user", content: [{ type: "text", text: id }] } }));
    const revision = firstSummary("The user asked twice for the same fix. ".repeat(10));
    const tokens = (charsPerToken: number, compaction: ContextRevision) =>
      compile(inputOf(transcript, { compactions: [compaction] }), { ...CONFIG, tokenCounter: estimatedTokenCounter(charsPerToken) }).manifest.items.find(
        (item) => item.id === "summary:1",
      )!.tokens;
    const four = tokens(4, revision);
    expect(tokens(2, revision)).toBe(tokens(2, { ...revision }));
    expect(tokens(2, revision)).toBeGreaterThan(four * 1.8);
  });
});

describe("a long-lived compiler given a transcript that grows into a shown summary", () => {
  // layout.ts:224 (`previous.shown.size === 0` as `!== 0`: the extended layout forgot which summaries it showed).
  it("shows the summary once, as a fresh compile does", () => {
    const user = (id: string): SourceMessage => ({ id, message: { role: "user", content: [{ type: "text", text: id }] } });
    const revision = firstSummary("Two notes.");
    const compiler = createContextCompiler(FAST);
    const transcript = ["event:3", "event:4", "event:5"].map(user);
    const extra = { tools: TOOLS, compactions: [revision] }; // the same tools: the layout is extended, not rebuilt
    compiler.compile(inputOf(transcript.slice(0, 1), extra));
    const grown = inputOf(transcript, extra);
    const next = compiler.compile(grown);
    expect(next.manifest.items.filter((item) => item.id === "summary:1")).toHaveLength(1);
    expect(next.bytes).toBe(compile(grown, FAST).bytes);
  });
});

describe("a compaction that folds an earlier summary in", () => {
  // layout.ts:194 (the summary's candidate charged its tokens minus the message overhead, not plus):
  // it freed less than it does, so one more message was folded in. The summary's length (31
  // characters) was found by search: 26 to 42 tell the two apart with these messages.
  it("counts the summary with its framing, like any message", async () => {
    const transcript: SourceMessage[] = Array.from({ length: 12 }, (_, index) => ({
      id: `event:${index + 3}`,
      message: { role: "user", content: [{ type: "text", text: `${index}`.padEnd(64, "x") }] },
    }));
    const revision = firstSummary("The user asked to fix one test.");
    const made = await compactContext(
      { revision: 20, task: "Fix the test.", tools: [], transcript, compactions: [revision] },
      { ...FAST, compaction: { threshold: 1, keepRecentMessages: 2, maxSummaryChars: 200 } },
      { force: true },
    );
    expect(made?.replaces).toEqual(["summary:1", "event:5", "event:6", "event:7", "event:8"]);
  });
});

describe("a long-lived compiler after a compile that threw half-way through the transcript", () => {
  // layout.ts:151-155 (columnsAfter's last-writer check forced true) and :160-166 (no coverage:
  // the copy): what was laid out before the throw stayed in the shared columns. The throw comes at the first new message (only the sources column has grown), then
  // after two good ones (every column has).
  it("gives the next turn the same result as a fresh compile", () => {
    const transcript = makeTranscript(3);
    const bad: SourceMessage = { id: "event:99", message: toolMessage({ status: "ok", content: [], output: { ratio: Number.NaN }, timing: TIMING }) };
    const fresh = compile(inputAt(transcript, 3), FAST);
    for (const good of [0, 2]) {
      const compiler = createContextCompiler(FAST);
      compiler.compile(inputAt(transcript, 2));
      expect(() => compiler.compile({ ...inputAt(transcript, 3), transcript: [...transcript.slice(0, 4 + good), bad] })).toThrow(/not canonical JSON/);
      const next = compiler.compile(inputAt(transcript, 3));
      expect(next.bytes, `${good} good`).toBe(fresh.bytes);
      expect(next.manifest, `${good} good`).toEqual(fresh.manifest);
    }
  });

  // layout.ts:172-174 and :176 (columnsAfter's copy keeping the shared messages, frames,
  // artifacts or candidates column instead of its part: Stryker survivors of the second session
  // of 2026-12-03). The failed compile laid out another turn (other ids, text and artifacts)
  // before the throw; the next turn's messages then went after those in the shared column and
  // the first `count` read were the failed turn's. Uncompacted, that shows in the request,
  // bytes and artifacts; compacted (window 900: turn 2 fits, turn 3 does not), compaction's
  // candidates took the failed turn's two messages too and folded ids the transcript lacks.
  it("gives a next turn unlike the failed one the same result as a fresh compile, compacted or not", () => {
    const transcript = makeTranscript(4, { largeEvery: 1, largeBytes: 1_000 });
    const otherTurn = makeTranscript(6, { largeEvery: 1, largeBytes: 1_000 }).slice(10, 12);
    const bad: SourceMessage = { id: "event:99", message: toolMessage({ status: "ok", content: [], output: { ratio: Number.NaN }, timing: TIMING }) };
    const failed = { ...inputAt(transcript, 3), transcript: [...transcript.slice(0, 4), ...otherTurn, bad] };
    const cut: CompileConfig = { ...FAST, toolOutputBudgetBytes: 400 };
    const compacted: CompileConfig = { ...cut, contextWindow: 900, maxOutputTokens: 100, compaction: { threshold: 0.5, keepRecentMessages: 2 } };
    for (const [name, config] of [
      ["uncompacted", cut],
      ["compacted", compacted],
    ] as const) {
      const fresh = compile(inputAt(transcript, 3), config);
      expect(fresh.artifacts.length, name).toBeGreaterThan(0);
      expect(
        fresh.compactions.map((revision) => revision.replaces),
        name,
      ).toEqual(name === "compacted" ? [["event:3", "event:5", "event:8", "event:10"]] : []);
      const compiler = createContextCompiler(config);
      compiler.compile(inputAt(transcript, 2));
      expect(() => compiler.compile(failed), name).toThrow(/not canonical JSON/);
      const next = compiler.compile(inputAt(transcript, 3));
      expect(next.request, name).toEqual(fresh.request);
      expect(next.bytes, name).toBe(fresh.bytes);
      expect(next.manifest, name).toEqual(fresh.manifest);
      expect(next.artifacts, name).toEqual(fresh.artifacts);
      expect(next.compactions, name).toEqual(fresh.compactions);
    }
  });
});
