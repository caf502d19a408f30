// One run of the budget benchmark's turn (a scripted model, two no-op tools per turn), for
// harness-budget-instructions.ts to count under callgrind: `bare` (no budget, no loop
// detection), `plain` (no budget) or `budget` (every dimension bounded, with a pricing table).
// usage: node harness-budget-run.ts <bare|plain|budget> <turns>
import { createMemoryJournal } from "@yoke/journal";
import { sequentialIdSource, steppingClock } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { type BudgetVariant, budgetTurnOptions } from "./budget-turn.ts";

const variant = (process.argv[2] ?? "plain") as BudgetVariant;
const turns = Number(process.argv[3] ?? "10");
const harness = createHarness({
  ...budgetTurnOptions(variant, turns),
  journal: createMemoryJournal(),
  tenantId: "tenant_bench",
  clock: steppingClock(1_700_000_000_000, 1),
  ids: sequentialIdSource(),
});
const result = await harness.start("benchmark task");
if (result.outcome?.status !== "completed") throw new Error(`bench run ended ${result.outcome?.status}`);
