// The harness's own cost per turn: a scripted model, two no-op tools per turn, a SQLite
// journal. Prints JSON with the median per-turn time in µs (turn.started to turn.started),
// the mean, and the process's peak resident memory.
// usage: node harness-turns.ts <turns> <full|normal>
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createSqliteJournal } from "@yoke/journal";
import { sequentialIdSource, steppingClock } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { median } from "./stats.ts";

const turns = Number(process.argv[2] ?? "50");
const synchronous = process.argv[3] === "normal" ? "normal" : "full";
const dir = mkdtempSync(join(tmpdir(), "yoke-bench-turns-"));
const filename = join(dir, "journal.sqlite");

const noop = (name: string) =>
  defineTool({ name, description: `does nothing (${name})`, input: z.object({ n: z.number() }), sideEffect: "none", execute: async () => "ok" });

const steps = [
  ...Array.from({ length: turns - 1 }, (_, turn) =>
    callTools([
      { id: `call_${turn}_a`, name: "noop_a", args: { n: turn } },
      { id: `call_${turn}_b`, name: "noop_b", args: { n: turn } },
    ]),
  ),
  say("done"),
];
const journal = await createSqliteJournal({ filename, synchronous });
const turnStarts: bigint[] = [];
const harness = createHarness({
  journal,
  provider: createScriptedModel(steps, { recordCalls: false }),
  tools: [noop("noop_a"), noop("noop_b")],
  tenantId: "tenant_bench",
  clock: steppingClock(1_700_000_000_000, 1),
  ids: sequentialIdSource(),
  maxTurns: turns + 1,
  onEvent: (event) => {
    if (event.type === "turn.started") turnStarts.push(process.hrtime.bigint());
  },
});
const start = process.hrtime.bigint();
const result = await harness.start("benchmark task");
const totalUs = Number(process.hrtime.bigint() - start) / 1e3;
if (result.outcome?.status !== "completed") throw new Error(`bench run ended ${result.outcome?.status}`);
const perTurn = turnStarts.slice(1).map((at, index) => Number(at - turnStarts[index]!) / 1e3);
// Per-turn medians over the last 50 turns: the cost at this history length.
const tail = perTurn.slice(-50);
await journal.close();
// What the run still holds after a full collection (needs --expose-gc): history is streamed, not kept.
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const heapAfterGcMb = gc ? process.memoryUsage().heapUsed / 1048576 : undefined;
const journalBytes = statSync(filename).size;
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    turns,
    synchronous,
    medianTurnUs: median(perTurn),
    tailMedianTurnUs: median(tail),
    meanTurnUs: totalUs / turns,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    heapAfterGcMb,
    journalBytes,
  }),
);
