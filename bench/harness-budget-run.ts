// One run of the budget benchmark's turn (a scripted model, two no-op tools per turn), for
// harness-budget-instructions.ts to count under callgrind: `bare` (no budget, no loop
// detection), `plain` (no budget) or `budget` (every dimension bounded, with a pricing table),
// on a memory journal (the harness's CPU alone) or a SQLite file at synchronous=NORMAL (the
// default store: what a run pays, SQLite's own instructions included).
// usage: node harness-budget-run.ts <bare|plain|budget> <turns> [memory|sqlite]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryJournal, createSqliteJournal } from "@yoke/journal";
import { sequentialIdSource, steppingClock } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { type BudgetVariant, budgetTurnOptions } from "./budget-turn.ts";

const variant = (process.argv[2] ?? "plain") as BudgetVariant;
const turns = Number(process.argv[3] ?? "10");
const dir = process.argv[4] === "sqlite" ? mkdtempSync(join(tmpdir(), "yoke-bench-run-")) : undefined;
const harness = createHarness({
  ...budgetTurnOptions(variant, turns),
  journal: dir === undefined ? createMemoryJournal() : await createSqliteJournal({ filename: join(dir, "run.sqlite"), synchronous: "normal" }),
  tenantId: "tenant_bench",
  clock: steppingClock(1_700_000_000_000, 1),
  ids: sequentialIdSource(),
});
const result = await harness.start("benchmark task");
if (result.outcome?.status !== "completed") throw new Error(`bench run ended ${result.outcome?.status}`);
if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
