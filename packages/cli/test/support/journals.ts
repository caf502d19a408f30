// Produces REAL journals for the CLI's and the viewer's tests: SQLite files written by the
// real harness (@yoke/runtime) with a scripted model (@yoke/testkit) and real tools.
//
// - completedRun(): a run with tools that ends verified_success (a rejected malformed call,
//   budget reservations priced in USD);
// - crashedRun(): a child process really SIGKILLed right after the write's admission is
//   durable (the write is `executing` with no outcome); crashedAndResumedRun() resumes it in
//   this process (the write is reconciled and retried, the run ends verified_success);
// - tamperedRun(): the completed run with one row edited in the SQLite file, so verify fails
//   at a known seq (`tamperedSeq`);
// - largeRun(): a run of at least 10,000 events.
//
// Each producer caches its journal for the life of the test file (one temp dir per file);
// `fresh: true` makes a new copy the caller may change (resume, import into).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSqliteJournal } from "@yoke/journal";
import type { JournalEvent } from "@yoke/protocol";
import { callTools, say, type ScriptedStep } from "@yoke/testkit";
import Database from "better-sqlite3";
import { RUN_ID, TASK, TENANT, progressOf, scenarioHarness, seedWorkspace } from "./scenario.ts";

export { RUN_ID, TENANT } from "./scenario.ts";

export interface ProducedJournal {
  /** The SQLite journal file (its head witness is `${file}-head`). */
  readonly file: string;
  readonly tenantId: string;
  readonly runId: string;
  /** The run's workspace (files the tools wrote). */
  readonly workspace: string;
}

let root: string | undefined;
const cache = new Map<string, Promise<ProducedJournal>>();
let counter = 0;

/** The temp dir of this test file's journals (removed by `removeJournals`). */
function rootDir(): string {
  root ??= mkdtempSync(join(tmpdir(), "yoke-cli-journals-"));
  return root;
}

/** Removes every journal produced by this module (call it in `afterAll`). */
export function removeJournals(): void {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  root = undefined;
  cache.clear();
}

function newDir(name: string): string {
  const dir = join(rootDir(), `${name}-${++counter}`);
  mkdirSync(join(dir, "workspace"), { recursive: true });
  return dir;
}

/** A copy of a produced journal (file and head witness) in a new dir, to change freely. */
export function copyJournal(source: ProducedJournal, name = "copy"): ProducedJournal {
  const dir = newDir(name);
  const file = join(dir, "journal.sqlite");
  copyFileSync(source.file, file);
  // A killed writer leaves its last commits in the -wal file: it is part of the journal.
  for (const suffix of ["-head", "-wal"]) if (existsSync(`${source.file}${suffix}`)) copyFileSync(`${source.file}${suffix}`, `${file}${suffix}`);
  return { ...source, file };
}

function cached(key: string, produce: () => Promise<ProducedJournal>, fresh: boolean | undefined): Promise<ProducedJournal> {
  if (!cache.has(key)) cache.set(key, produce());
  const produced = cache.get(key)!;
  return fresh ? produced.then((journal) => copyJournal(journal, key)) : produced;
}

async function runToEnd(dir: string, steps?: ScriptedStep[], maxTurns?: number): Promise<ProducedJournal> {
  const workspace = join(dir, "workspace");
  seedWorkspace(workspace);
  const file = join(dir, "journal.sqlite");
  const journal = await createSqliteJournal({ filename: file, synchronous: "normal" });
  try {
    const { harness, model } = scenarioHarness({ journal, workspace, ...(steps ? { steps } : {}), ...(maxTurns ? { maxTurns } : {}) });
    const result = await harness.start(TASK, { runId: RUN_ID });
    model.assertConsumed();
    if (result.outcome?.status !== "verified_success") throw new Error(`the scenario ended ${JSON.stringify(result.outcome)}`);
  } finally {
    await journal.close();
  }
  return { file, tenantId: TENANT, runId: RUN_ID, workspace };
}

/** A completed run with tools (verified_success). */
export function completedRun(options: { fresh?: boolean } = {}): Promise<ProducedJournal> {
  return cached("completed", () => runToEnd(newDir("completed")), options.fresh);
}

const child = fileURLToPath(new URL("./scenario-child.ts", import.meta.url));

/** A run whose process was SIGKILLed right after the write's admission was durable; not resumed. `killedAfterSeq`: the last seq written. */
export function crashedRun(options: { fresh?: boolean } = {}): Promise<ProducedJournal & { killedAfterSeq: number }> {
  return cached(
    "crashed",
    async () => {
      const dir = newDir("crashed");
      let output = "";
      let signal: string | null = null;
      try {
        output = execFileSync(process.execPath, [child, dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      } catch (error) {
        const failed = error as { signal?: string | null; stdout?: string; stderr?: string };
        signal = failed.signal ?? null;
        output = failed.stdout ?? "";
        if (signal !== "SIGKILL") throw new Error(`the scenario child did not die by SIGKILL: ${failed.stderr ?? ""}`);
      }
      const killed = /KILLED_AFTER (\d+)/.exec(output);
      if (signal !== "SIGKILL" || !killed) throw new Error(`the scenario child was not killed: ${output}`);
      return { file: join(dir, "journal.sqlite"), tenantId: TENANT, runId: RUN_ID, workspace: join(dir, "workspace"), killedAfterSeq: Number(killed[1]) };
    },
    options.fresh,
  ) as Promise<ProducedJournal & { killedAfterSeq: number }>;
}

/** Resumes the run in `produced` (in this process) to its end. */
export async function resumeRun(produced: ProducedJournal): Promise<void> {
  const journal = await createSqliteJournal({ filename: produced.file });
  try {
    const { answered, lastAt } = await progressOf(journal);
    const { harness, model } = scenarioHarness({ journal, workspace: produced.workspace, answered, lastAt });
    const result = await harness.startOrResume(TASK, { runId: RUN_ID, waitForLease: 60_000 });
    model.assertConsumed();
    if (result.outcome?.status !== "verified_success") throw new Error(`the resumed run ended ${JSON.stringify(result.outcome)}`);
  } finally {
    await journal.close();
  }
}

/** The crashed run, resumed to verified_success: its write was `executing` when the process died. */
export function crashedAndResumedRun(options: { fresh?: boolean } = {}): Promise<ProducedJournal & { killedAfterSeq: number }> {
  return cached(
    "resumed",
    async () => {
      const crashed = await crashedRun();
      const copy = { ...copyJournal(crashed, "resumed"), workspace: crashed.workspace, killedAfterSeq: crashed.killedAfterSeq };
      await resumeRun(copy);
      return copy;
    },
    options.fresh,
  ) as Promise<ProducedJournal & { killedAfterSeq: number }>;
}

/** The seq of the event `tamperedRun` edits: the read_file action's commit (its result text). */
export async function committedReadSeq(produced: ProducedJournal): Promise<number> {
  const events = await readEvents(produced);
  const event = events.find((entry) => entry.type === "action.committed");
  if (!event) throw new Error("no action.committed in the run");
  return event.seq;
}

/** The completed run with the first committed tool result edited in place in the SQLite file: verify fails there (hash_mismatch). */
export function tamperedRun(options: { fresh?: boolean } = {}): Promise<ProducedJournal & { tamperedSeq: number }> {
  return cached(
    "tampered",
    async () => {
      const copy = copyJournal(await completedRun(), "tampered");
      const tamperedSeq = await committedReadSeq(copy);
      const db = new Database(copy.file);
      try {
        const row = db.prepare("SELECT data FROM events WHERE tenant_id = ? AND run_id = ? AND seq = ?").get(TENANT, RUN_ID, tamperedSeq) as { data: string };
        const edited = row.data.replace("ship the journal", "ship the journa1");
        if (edited === row.data) throw new Error("nothing to tamper with");
        db.prepare("UPDATE events SET data = ? WHERE tenant_id = ? AND run_id = ? AND seq = ?").run(edited, TENANT, RUN_ID, tamperedSeq);
      } finally {
        db.close();
      }
      return { ...copy, tamperedSeq };
    },
    options.fresh,
  ) as Promise<ProducedJournal & { tamperedSeq: number }>;
}

/** Calls per turn of the large run: distinct checks, so loop detection never steers. */
const LARGE_CALLS_PER_TURN = 16;

function largeScript(turns: number): ScriptedStep[] {
  const steps: ScriptedStep[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const calls = Array.from({ length: LARGE_CALLS_PER_TURN }, (_, index) => ({ name: "run_check", args: { note: `t${turn}c${index}` } }));
    steps.push({ ...callTools(calls), usage: { inputTokens: 1_000 + turn, outputTokens: 40 } });
  }
  steps.push({
    ...callTools([{ name: "write_file", args: { path: "summary.md", content: "# Summary\n\n- ship the journal\n- write the tests\n- run the demo\n" } }]),
    usage: { inputTokens: 2_000, outputTokens: 64 },
  });
  steps.push({ ...say("done"), usage: { inputTokens: 2_100, outputTokens: 4 } });
  return steps;
}

/** The number of tool turns of the large run: 10,000+ events (36 per turn), over 4,000 actions (the viewer's test pages them). */
export const LARGE_TURNS = 285;

/**
 * A run of at least 10,000 events (`events`: how many). It takes ~15 s to write, so it is
 * shared by every test file (and the bench) on this machine: kept under the OS temp dir, keyed
 * by this module, the scenario and the runtime build, and published with an atomic rename.
 */
export function largeRun(options: { fresh?: boolean } = {}): Promise<ProducedJournal & { events: number }> {
  return cached(
    "large",
    async () => {
      const shared = join(tmpdir(), `yoke-cli-large-${largeKey()}`);
      const file = join(shared, "journal.sqlite");
      if (!existsSync(join(shared, "events.json"))) {
        const building = newDir("large");
        const produced = await runToEnd(building, largeScript(LARGE_TURNS), LARGE_TURNS + 4);
        writeFileSync(join(building, "events.json"), String((await readEvents(produced)).length));
        try {
          renameSync(building, shared);
        } catch {
          // Another test file published it first: use theirs.
        }
      }
      const events = Number(readFileSync(join(shared, "events.json"), "utf8"));
      return { file, tenantId: TENANT, runId: RUN_ID, workspace: join(shared, "workspace"), events };
    },
    options.fresh,
  ) as Promise<ProducedJournal & { events: number }>;
}

function largeKey(): string {
  const hash = createHash("sha256");
  for (const path of ["./journals.ts", "./scenario.ts"]) hash.update(readFileSync(fileURLToPath(new URL(path, import.meta.url))));
  const runtime = createRequire(import.meta.url).resolve("@yoke/runtime");
  const stat = statSync(runtime);
  hash.update(`${runtime}:${stat.size}:${stat.mtimeMs}`);
  return hash.digest("hex").slice(0, 16);
}

/** Every event of the produced run, read through the journal (a tampered run throws at its bad seq). */
export async function readEvents(produced: ProducedJournal): Promise<JournalEvent[]> {
  const journal = await createSqliteJournal({ filename: produced.file, readOnly: true });
  try {
    const events: JournalEvent[] = [];
    for await (const event of journal.read({ tenantId: produced.tenantId, runId: produced.runId })) events.push(event);
    return events;
  } finally {
    await journal.close();
  }
}
