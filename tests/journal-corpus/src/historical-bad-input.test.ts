// Bad input to the historical corpus's reader: each damaged copy of a corpus journal is a typed
// YokeError naming the event (run and seq) or the file, never a silent pass. The committed
// corpus is never touched: every test works on a copy.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { computeEventHash } from "@yoke/journal";
import { GENESIS_HASH, YokeError, canonicalJson, type JournalEvent } from "@yoke/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { HISTORICAL, historicalEntries, readHistorical, readJournalText, readManifest, readMeta, type HistoricalEntry } from "./historical-corpus.js";

const ENTRY = historicalEntries().find((entry) => entry.id === "schema-1-fa33b6b/tool-turn")!;
const FILE = `${ENTRY.id}/journal.jsonl`;
const TEXT = readFileSync(join(ENTRY.directory, "journal.jsonl"), "utf8");
const META = readMeta(ENTRY);
const copies = mkdtempSync(join(tmpdir(), "yoke-historical-"));
afterAll(() => rmSync(copies, { recursive: true, force: true }));

function eventsOf(text: string): JournalEvent[] {
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as JournalEvent);
}

/** `events` chained again from genesis, as a writer of a forged journal would. */
function rechained(events: readonly JournalEvent[]): string {
  let prevHash = GENESIS_HASH;
  return events
    .map((event) => {
      const { hash: _old, ...rest } = { ...event, prevHash };
      const hash = computeEventHash(rest);
      prevHash = hash;
      return `${canonicalJson({ ...rest, hash })}\n`;
    })
    .join("");
}

/** The typed error `read` throws; fails the test when it returns. */
function refusal(read: () => unknown): YokeError {
  try {
    read();
  } catch (error) {
    if (YokeError.isInstance(error)) return error;
    throw error;
  }
  return expect.fail("the damaged journal was read back without an error");
}

function withEvent(seq: number, change: (event: JournalEvent) => JournalEvent): string {
  return rechained(eventsOf(TEXT).map((event) => (event.seq === seq ? change(event) : event)));
}

describe("the historical corpus refuses bad input with a typed error naming the event", () => {
  it("reads the untouched copy (the tests below start from a journal that reads)", () => {
    expect(readJournalText(FILE, TEXT, META).folds.get("run_corpus")?.outcome?.status).toBe("completed");
  });

  it("an event of a newer schema version: JOURNAL_SCHEMA_UNSUPPORTED naming its seq", () => {
    const error = refusal(() =>
      readJournalText(
        FILE,
        withEvent(3, (event) => ({ ...event, schemaVersion: 2 })),
      ),
    );
    expect(error.code).toBe("JOURNAL_SCHEMA_UNSUPPORTED");
    expect(error.details).toMatchObject({ seq: 3, schemaVersion: 2, supported: 1 });
    expect(error.message).toContain(`${FILE} line 4, event run_corpus seq 3 (model.requested)`);
  });

  it("an event type the protocol does not define: EVENT_INVALID naming its seq and type", () => {
    const error = refusal(() =>
      readJournalText(
        FILE,
        withEvent(4, (event) => ({ ...event, type: "model.teleported" })),
      ),
    );
    expect(error.code).toBe("EVENT_INVALID");
    expect(error.details).toMatchObject({ seq: 4, type: "model.teleported" });
    expect(error.message).toContain("seq 4 (model.teleported)");
  });

  it("a journal cut mid-run: JOURNAL_TRUNCATED naming the run and the last event left", () => {
    const events = eventsOf(TEXT);
    const kept = events.slice(0, 7);
    const error = refusal(() => readJournalText(FILE, rechained(kept), META));
    expect(error.code).toBe("JOURNAL_TRUNCATED");
    expect(error.details).toMatchObject({ runId: "run_corpus", seq: 6 });
    expect(error.message).toContain(`run run_corpus ends at seq 6 (${kept[6]!.type}); meta.json recorded ${events.length} events`);
  });

  it("a journal cut inside a line: JOURNAL_TRUNCATED naming the line", () => {
    const cut = TEXT.slice(0, TEXT.indexOf("\n", 2_000) - 40);
    const error = refusal(() => readJournalText(FILE, cut, META));
    expect(error.code).toBe("JOURNAL_TRUNCATED");
    expect(error.message).toMatch(/line \d+ is cut short/);
  });

  it("a tampered line: JOURNAL_CHAIN_BROKEN naming the event whose content no longer matches its hash", () => {
    const at = TEXT.indexOf('"text":"echo: hi"');
    expect(at).toBeGreaterThan(0);
    const tampered = `${TEXT.slice(0, at)}"text":"echo: HI"${TEXT.slice(at + '"text":"echo: hi"'.length)}`;
    const seq = (JSON.parse(TEXT.slice(TEXT.lastIndexOf("\n", at) + 1, TEXT.indexOf("\n", at))) as JournalEvent).seq;
    const error = refusal(() => readJournalText(FILE, tampered, META));
    expect(error.code).toBe("JOURNAL_CHAIN_BROKEN");
    expect(error.details).toMatchObject({ runId: "run_corpus", seq, reason: "hash_mismatch" });
    expect(error.message).toContain(`event run_corpus seq ${seq}`);
  });

  it("a forged journal re-chained after an edit: its head is not the one meta.json recorded (JOURNAL_CORRUPT naming the run)", () => {
    const forged = withEvent(0, (event) => ({ ...event, data: { ...(event.data as object), task: "Something else." } }));
    const error = refusal(() => readJournalText(FILE, forged, META));
    expect(error.code).toBe("JOURNAL_CORRUPT");
    expect(error.details).toMatchObject({ runId: "run_corpus", reason: "head_mismatch" });
  });

  it("an event whose fold throws (an action committed that was never admitted): ACTION_TRANSITION_ILLEGAL naming its seq", () => {
    const events = eventsOf(TEXT);
    const committed = events.find((event) => event.type === "action.committed")!;
    const orphan = { ...committed, data: { ...(committed.data as object), actionId: "action_never_admitted" }, causationId: "action_never_admitted" };
    const error = refusal(() => readJournalText(FILE, rechained(events.map((event) => (event === committed ? orphan : event)))));
    expect(error.code).toBe("ACTION_TRANSITION_ILLEGAL");
    expect(error.message).toContain("the fold of run run_corpus refused it");
    expect(error.details).toMatchObject({ actionId: "action_never_admitted", type: "action.committed", seq: committed.seq });
  });

  it("every single flipped byte of a corpus journal is refused with a typed error, never read back silently", () => {
    const smallest = historicalEntries().find((entry) => entry.id === "schema-1-fa33b6b/budget-refused")!;
    const bytes = readFileSync(join(smallest.directory, "journal.jsonl"));
    const meta = readMeta(smallest);
    const codes = new Set<string>();
    for (let index = 0; index < bytes.length; index += 1) {
      const copy = Buffer.from(bytes);
      copy[index] = copy[index]! ^ 0x01;
      const error = refusal(() => readJournalText(`${smallest.id}/journal.jsonl`, copy.toString("utf8"), meta));
      expect(error.message, `byte ${index}`).toMatch(/line \d+|seq \d+/);
      codes.add(error.code);
    }
    expect([...codes].sort()).toEqual(expect.arrayContaining(["JOURNAL_CHAIN_BROKEN", "JOURNAL_CORRUPT"]));
  });
});

describe("a tampered copy of the corpus directory", () => {
  function copyOf(entry: HistoricalEntry): { root: string; entry: HistoricalEntry } {
    const root = mkdtempSync(join(copies, "corpus-"));
    cpSync(join(HISTORICAL, "MANIFEST.json"), join(root, "MANIFEST.json"));
    cpSync(entry.directory, join(root, entry.release, entry.name), { recursive: true });
    return { root, entry: historicalEntries(root)[0]! };
  }

  it("reads back untouched", () => {
    const { root, entry } = copyOf(ENTRY);
    expect(readHistorical(entry, readManifest(root)).meta.scenario).toBe("tool-turn");
  });

  it("a flipped byte in journal.jsonl is named by its event (JOURNAL_CHAIN_BROKEN), before the checksum", () => {
    const { root, entry } = copyOf(ENTRY);
    const path = join(entry.directory, "journal.jsonl");
    const bytes = readFileSync(path);
    const at = bytes.indexOf('"task":"');
    bytes[at + 8] = bytes[at + 8]! ^ 0x20;
    writeFileSync(path, bytes);
    const error = refusal(() => readHistorical(entry, readManifest(root)));
    expect(error.code).toBe("JOURNAL_CHAIN_BROKEN");
    expect(error.message).toContain(`${ENTRY.id}/journal.jsonl: event run_corpus seq 0 (run.started)`);
  });

  it("an edited meta.json is a corpus checksum mismatch naming the file", () => {
    const { root, entry } = copyOf(ENTRY);
    const path = join(entry.directory, "meta.json");
    writeFileSync(path, readFileSync(path, "utf8").replace('"recordedAt": "fa33b6b"', '"recordedAt": "0000000"'));
    const error = refusal(() => readHistorical(entry, readManifest(root)));
    expect(error.code).toBe("JOURNAL_CORRUPT");
    expect(error.details).toMatchObject({ reason: "checksum_mismatch", file: `${ENTRY.id}/meta.json` });
    expect(error.message).toMatch(/^historical corpus checksum mismatch: schema-1-fa33b6b\/tool-turn\/meta\.json/);
  });

  it("a journal the manifest does not list is refused", () => {
    const { root, entry } = copyOf(ENTRY);
    const manifest = readManifest(root);
    delete manifest[`${ENTRY.id}/journal.jsonl`];
    const error = refusal(() => readHistorical(entry, manifest));
    expect(error.code).toBe("JOURNAL_CORRUPT");
    expect(error.message).toContain("the manifest lists no such file");
  });
});
