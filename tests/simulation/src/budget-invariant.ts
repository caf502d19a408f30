import { budgetReport } from "@yoke/budget";
import { YokeError, type YokeEvent } from "@yoke/protocol";
import type { SeedRun } from "@yoke/testkit/sim";
import type { DrivenWorld } from "./drive.ts";

/** No budget dimension is charged past its limit, beyond the overshoot its journal declares. */
export function budgetWithinDeclaredOvershoot(run: SeedRun<DrivenWorld>): void {
  if (run.world.budget === undefined) return;
  const report = budgetReport(run.events as readonly YokeEvent[]);
  for (const row of report.dimensions) {
    if (row.limit === null) continue;
    const declared = report.overshoots.reduce((sum, overshoot) => sum + ((overshoot.excess as Record<string, number>)[row.dimension] ?? 0), 0);
    if (row.charged > row.limit + declared) {
      throw new YokeError(
        "TESTKIT_EXPECTATION_FAILED",
        `budgetWithinDeclaredOvershoot: ${row.dimension} charged ${row.charged}, limit ${row.limit}, declared overshoot ${declared}`,
        {
          details: { dimension: row.dimension, charged: row.charged, limit: row.limit, declared },
        },
      );
    }
  }
}
