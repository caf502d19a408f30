// Bounded imports: `yoke import` reads an export a chunk at a time and checks each event's
// size (the journal's maxEventBytes, 8 MiB by default) as it reaches it, so a 40 MB event is
// refused (JOURNAL_EVENT_TOO_LARGE, exit 4) without the file ever being held in memory, and a
// large run of small events imports in bounded memory. Every format and chain refusal still
// comes before anything is written.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryJournal, DEFAULT_MAX_EVENT_BYTES } from "@yoke/journal";
import { canonicalJson, type EventDraft, type JournalEvent } from "@yoke/protocol";
import { runStartedDraft } from "@yoke/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/main.ts";
import { exportRun } from "../src/transfer/run-export.ts";
import { YOKE_BIN } from "./support/run-yoke.ts";

const dir = mkdtempSync(join(tmpdir(), "yoke-import-bounds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const scope = { tenantId: "tenant_big", runId: "run_big" };
const HEAP_MB = 48;

const input = (index: number, text: string): EventDraft => ({
  type: "interrupt.requested",
  at: 1_000 + index,
  causationId: null,
  data: { interruptId: `interrupt_${index}`, kind: "input", text },
});

async function sealed(drafts: readonly EventDraft[]): Promise<JournalEvent[]> {
  const journal = createMemoryJournal({ maxEventBytes: Number.MAX_SAFE_INTEGER });
  const events: JournalEvent[] = [];
  for (let from = 0; from < drafts.length; from += 1_000) events.push(...(await journal.append(scope, from, drafts.slice(from, from + 1_000))).events);
  return events;
}

async function yoke(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), isTTY: false });
  return { code, stdout, stderr };
}

/**
 * `yoke import` in a child process whose JavaScript heap is capped at HEAP_MB, smaller than the
 * files imported here: an import that holds the file (as text, or parsed) dies of it. Reports
 * the child's peak resident memory (MB: SQLite and I/O buffers included).
 */
function importMeasured(file: string, journal: string): Promise<{ code: number | null; stdout: string; stderr: string; peakMb: number }> {
  const script = `process.on("exit", () => process.stderr.write("PEAK " + Math.round(process.resourceUsage().maxRSS / 1024) + "\\n")); process.argv = [process.argv[0], ${JSON.stringify(YOKE_BIN)}, "import", ${JSON.stringify(file)}, "--journal", ${JSON.stringify(journal)}]; await import(${JSON.stringify(YOKE_BIN)});`;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [`--max-old-space-size=${HEAP_MB}`, "--input-type=module", "-e", script],
      { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const peak = /PEAK (\d+)\n/.exec(stderr);
        resolve({
          code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
          stdout,
          stderr: stderr.replace(/PEAK \d+\n/, ""),
          peakMb: Number(peak?.[1] ?? Number.NaN),
        });
      },
    );
  });
}

describe("yoke import: bounded", { timeout: 240_000 }, () => {
  it("a 40 MB event is refused (JOURNAL_EVENT_TOO_LARGE, exit 4) under a 48 MB heap, and nothing is written", async ({ task }) => {
    const file = join(dir, "big-event.json");
    writeFileSync(file, exportRun(await sealed([runStartedDraft(), input(1, "x".repeat(40_000_000))])));
    const target = join(dir, "big.sqlite");
    const refused = await importMeasured(file, target);
    (task.meta as { summary?: string }).summary = `import of a 40 MB event: refused at peak RSS ${refused.peakMb} MB`;
    expect(refused.stderr).toMatch(
      /^yoke: JOURNAL_EVENT_TOO_LARGE: the export's event 1 is 400003\d\d bytes; the journal holds events of at most 8388608 bytes \(maxEventBytes\); nothing imported\n$/,
    );
    expect(refused.code).toBe(4);
    const after = await yoke(["runs", "--journal", target, "--json"]);
    expect(after.code === 3 || JSON.parse(after.stdout).runs.length === 0).toBe(true);
  });

  it("an event of exactly maxEventBytes imports; one byte more is refused", async () => {
    const probe = await sealed([runStartedDraft(), input(1, "")]);
    const base = Buffer.byteLength(canonicalJson(probe[1]), "utf8");
    // Two-byte characters (the limit counts UTF-8 bytes, not UTF-16 units), and an ASCII one when the gap is odd.
    const pad = "é".repeat(Math.floor((DEFAULT_MAX_EVENT_BYTES - base) / 2)) + "x".repeat((DEFAULT_MAX_EVENT_BYTES - base) % 2);
    const exact = await sealed([runStartedDraft(), input(1, pad)]);
    expect(Buffer.byteLength(canonicalJson(exact[1]), "utf8")).toBe(DEFAULT_MAX_EVENT_BYTES);
    const fits = join(dir, "fits.json");
    writeFileSync(fits, exportRun(exact));
    const imported = await yoke(["import", fits, "--journal", join(dir, "fits.sqlite")]);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    const over = join(dir, "over.json");
    writeFileSync(over, exportRun(await sealed([runStartedDraft(), input(1, `${pad}x`)])));
    const refused = await yoke(["import", over, "--journal", join(dir, "over.sqlite")]);
    expect(refused.stderr).toMatch(/^yoke: JOURNAL_EVENT_TOO_LARGE: the export's event 1 is 8388609 bytes/);
  });

  it("20,000 events (46 MB) import under a 48 MB heap, with the same hashes", async ({ task }) => {
    const drafts = [runStartedDraft(), ...Array.from({ length: 19_999 }, (_, index) => input(index + 1, "y".repeat(2_000)))];
    const events = await sealed(drafts);
    const file = join(dir, "many.json");
    writeFileSync(file, exportRun(events));
    const target = join(dir, "many.sqlite");
    const imported = await importMeasured(file, target);
    (task.meta as { summary?: string }).summary = `import of 20,000 events (46 MB): peak RSS ${imported.peakMb} MB`;
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`imported 20000 events of run_big (tenant tenant_big)`);
    const verified = await yoke(["verify", "run_big", "--journal", target, "--json"]);
    expect(JSON.parse(verified.stdout).runs[0]).toMatchObject({ ok: true, events: 20_000, headHash: events.at(-1)!.hash });
  });

  it("an export whose chain breaks after its first 500 events writes nothing; the format is checked even when the events come first", async () => {
    const events = await sealed([runStartedDraft(), ...Array.from({ length: 999 }, (_, index) => input(index + 1, "z"))]);
    const text = exportRun(events).replace('"interrupt_900"', '"interrupt_90O"');
    const file = join(dir, "late-break.json");
    writeFileSync(file, text);
    const target = join(dir, "late.sqlite");
    const refused = await yoke(["import", file, "--journal", target]);
    expect(refused.stderr).toBe("yoke: JOURNAL_CHAIN_BROKEN: the export's event 900 does not hash to its recorded hash: it was edited\n");
    const after = await yoke(["runs", "--journal", target, "--json"]);
    expect(after.code === 3 || JSON.parse(after.stdout).runs.length === 0).toBe(true);
    const otherFormat = join(dir, "other-format.json");
    writeFileSync(
      otherFormat,
      exportRun(events).replace('"format":"yoke.run-export"', '"format":"something-else"').replace('"interrupt_900"', '"interrupt_90O"'),
    );
    expect((await yoke(["import", otherFormat, "--journal", target])).stderr).toMatch(/^yoke: CONFIG_INVALID: the file is not a Yoke run export/);
    const truncated = join(dir, "truncated.json");
    writeFileSync(truncated, exportRun(events).slice(0, 5_000));
    expect((await yoke(["import", truncated, "--journal", target])).stderr).toMatch(/^yoke: CONFIG_INVALID: the file is not JSON: unexpected end of the file/);
    // 200,000 levels of nesting inside an event: a typed refusal on one line, not a stack overflow.
    const deep = join(dir, "deep.json");
    const nested = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    writeFileSync(deep, exportRun(events).replace('"data":{', `"data":{"deep":${nested},`));
    const refusedDeep = await yoke(["import", deep, "--journal", target]);
    expect(refusedDeep.stderr).toMatch(/^yoke: EVENT_INVALID: the export's event at index 0 is malformed: data: [^\n]+\n$/);
  });
});
