// The incident test: from a journal file alone, rebuild the request the model received on
// turn K and match its recorded hash. The journal here is JSON lines of the records a
// runtime writes (run inputs, transcript messages, manifest deltas, compactions,
// artifacts, the requested hash); the runtime's own events carry the same data.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { canonicalJson, type Message, type ToolSpec } from "@yoke/protocol";
import { createContextCompiler } from "./compiler.js";
import { ContextRevisionSchema, type ContextRevision } from "./compaction-types.js";
import { CONFIG, TOOLS, makeTranscript } from "./__fixtures__/runs.js";
import type { ContextInput, SourceMessage } from "./input.js";
import { applyManifestDelta, diffManifest } from "./manifest-delta.js";
import { ManifestDeltaSchema, type Manifest } from "./manifest-schema.js";
import { rebuildRequest } from "./rebuild.js";
import { estimatedTokenCounter } from "./tokenizer.js";

type JournalRecord =
  | { kind: "run.started"; systemPrompt: string; task: string; tools: ToolSpec[] }
  | { kind: "message.added"; id: string; message: Message }
  | { kind: "context.compacted"; revision: ContextRevision }
  | { kind: "artifact.stored"; hash: string; text: string }
  | { kind: "context.compiled"; turn: number; delta: unknown }
  | { kind: "model.requested"; turn: number; requestHash: string };

const dir = mkdtempSync(join(tmpdir(), "yoke-incident-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `turns` turns, journaling what a runtime would, and returns the file and the bytes each turn sent. */
function recordRun(turns: number): { file: string; sent: string[] } {
  const transcript = makeTranscript(turns, { largeEvery: 4, largeBytes: 20_000 });
  const config = {
    ...CONFIG,
    contextWindow: 6_000,
    maxOutputTokens: 1_000,
    toolOutputBudgetBytes: 1_500,
    tokenCounter: estimatedTokenCounter(),
    compaction: { threshold: 0.7, keepRecentMessages: 6 },
  };
  const compiler = createContextCompiler(config);
  const records: JournalRecord[] = [{ kind: "run.started", systemPrompt: "You are careful.", task: "Fix the bug.", tools: TOOLS }];
  const stored = new Set<string>();
  const compactions: ContextRevision[] = [];
  const sent: string[] = [];
  let previous: Manifest | undefined;
  for (let turn = 0; turn < turns; turn++) {
    if (turn > 0)
      for (const source of transcript.slice(turn * 2 - 2, turn * 2)) records.push({ kind: "message.added", id: source.id, message: source.message });
    const input: ContextInput = {
      revision: turn,
      systemPrompt: "You are careful.",
      task: "Fix the bug.",
      tools: TOOLS,
      transcript: transcript.slice(0, turn * 2),
      constraints: [{ id: "constraint:1", text: "Do not touch migrations." }],
      evidence: [{ id: `doc:${turn % 3}`, kind: "evidence", text: `Note ${turn % 3}: the bug is in the parser.`, priority: 1 }],
      compactions: compactions.slice(),
    };
    const result = compiler.compile(input);
    for (const revision of result.compactions) {
      compactions.push(revision);
      records.push({ kind: "context.compacted", revision });
    }
    for (const artifact of result.artifacts) {
      if (stored.has(artifact.hash)) continue;
      stored.add(artifact.hash);
      records.push({ kind: "artifact.stored", hash: artifact.hash, text: artifact.text });
    }
    records.push({ kind: "context.compiled", turn, delta: diffManifest(previous, result.manifest) });
    records.push({ kind: "model.requested", turn, requestHash: result.manifest.requestHash });
    sent.push(result.bytes);
    previous = result.manifest;
  }
  const file = join(dir, `journal-${turns}.jsonl`);
  writeFileSync(file, records.map((record) => canonicalJson(record)).join("\n"));
  return { file, sent };
}

/** Reads only the journal file and rebuilds turn `k`'s request. */
function rebuildFromJournal(file: string, k: number) {
  const records = readFileSync(file, "utf8")
    .split("\n")
    .map((line) => JSON.parse(line) as JournalRecord);
  const transcript: SourceMessage[] = [];
  const artifacts = new Map<string, string>();
  let started: Extract<JournalRecord, { kind: "run.started" }> | undefined;
  let manifest: Manifest | undefined;
  let recordedHash: string | undefined;
  for (const record of records) {
    if (record.kind === "run.started") started = record;
    else if (record.kind === "message.added") transcript.push({ id: record.id, message: record.message });
    else if (record.kind === "artifact.stored") artifacts.set(record.hash, record.text);
    else if (record.kind === "context.compacted") ContextRevisionSchema.parse(record.revision);
    else if (record.kind === "context.compiled" && record.turn <= k) manifest = applyManifestDelta(manifest, ManifestDeltaSchema.parse(record.delta));
    else if (record.kind === "model.requested" && record.turn === k) recordedHash = record.requestHash;
  }
  const rebuilt = rebuildRequest({ manifest: manifest!, source: { systemPrompt: started!.systemPrompt, task: started!.task, transcript }, artifacts });
  return { ...rebuilt, recordedHash, manifest: manifest! };
}

describe("rebuildRequest (incident reconstruction)", () => {
  const { file, sent } = recordRun(40);

  it.each([0, 1, 7, 19, 39])("rebuilds turn %i's request from the journal file alone and matches its recorded hash", (k) => {
    const { bytes, requestHash, recordedHash, matches } = rebuildFromJournal(file, k);
    expect(requestHash).toBe(recordedHash);
    expect(matches).toBe(true);
    expect(bytes).toBe(sent[k]);
  });

  it("covered truncation and compaction on the way", () => {
    const { manifest } = rebuildFromJournal(file, 39);
    expect(manifest.contextRevision).toBeGreaterThan(0);
    expect(manifest.items.some((item) => item.decision === "compacted")).toBe(true);
    expect(manifest.items.some((item) => item.decision === "truncated")).toBe(true);
  });

  it("names the missing piece when the journal lacks an artifact", () => {
    const { manifest } = rebuildFromJournal(file, 5);
    expect(() =>
      rebuildRequest({ manifest, source: { task: "Fix the bug.", systemPrompt: "You are careful.", transcript: [] }, artifacts: new Map() }),
    ).toThrow(expect.objectContaining({ code: "JOURNAL_CORRUPT" }));
  });
});
