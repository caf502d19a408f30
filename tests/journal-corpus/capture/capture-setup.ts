// Setup file of the capture run (vitest.capture.config.ts): every memory journal the runtime's
// own tests create is noted, and after each test file its streams are written to
// YOKE_CORPUS_CAPTURE_DIR, one JSONL file per test file: a header line per journal
// ({ journal: "<test name>#<n>" }), then its events, canonical JSON. Nothing of the runtime changes.
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { JournalEvent, JournalV1, RunScope } from "@yoke/protocol";
import { canonicalJson } from "@yoke/protocol";
import { afterAll, expect, vi } from "vitest";

interface Noted {
  readonly name: string;
  readonly journal: JournalV1;
  readonly scopes: Map<string, RunScope>;
  snapshot?: JournalEvent[][];
}

const noted: Noted[] = [];
const counts = new Map<string, number>();

async function snapshotOf(entry: Noted): Promise<JournalEvent[][]> {
  const streams: JournalEvent[][] = [];
  for (const scope of [...entry.scopes.values()].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))) {
    const events: JournalEvent[] = [];
    for await (const event of entry.journal.read(scope)) events.push(event);
    streams.push(events);
  }
  return streams;
}

vi.mock("@yoke/journal", async (importOriginal) => {
  const original = await importOriginal<typeof import("@yoke/journal")>();
  return {
    ...original,
    createMemoryJournal: (...args: Parameters<typeof original.createMemoryJournal>) => {
      const journal = original.createMemoryJournal(...args);
      const test = expect.getState().currentTestName ?? "(file)";
      const index = (counts.get(test) ?? 0) + 1;
      counts.set(test, index);
      const entry: Noted = { name: `${test}#${index}`, journal, scopes: new Map() };
      noted.push(entry);
      const append = journal.append.bind(journal);
      const close = journal.close.bind(journal);
      Object.assign(journal, {
        append: async (scope: RunScope, ...rest: unknown[]) => {
          const result = await (append as (...all: unknown[]) => Promise<unknown>)(scope, ...rest);
          entry.scopes.set(JSON.stringify([scope.tenantId, scope.runId]), { tenantId: scope.tenantId, runId: scope.runId });
          return result;
        },
        close: async () => {
          entry.snapshot ??= await snapshotOf(entry).catch(() => []);
          return close();
        },
      });
      return journal;
    },
  };
});

afterAll(async () => {
  const directory = process.env.YOKE_CORPUS_CAPTURE_DIR;
  if (directory === undefined) return;
  const file = basename(expect.getState().testPath ?? "unknown.test.ts");
  const lines: string[] = [];
  for (const entry of noted) {
    const streams = entry.snapshot ?? (await snapshotOf(entry).catch(() => []));
    if (streams.length === 0) continue;
    lines.push(canonicalJson({ journal: entry.name }));
    for (const events of streams) for (const event of events) lines.push(canonicalJson(event));
  }
  mkdirSync(directory, { recursive: true });
  if (lines.length > 0) writeFileSync(join(directory, `${file}.jsonl`), lines.map((line) => `${line}\n`).join(""));
});
