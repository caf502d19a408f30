// What a generated scenario's run actually exercised, read from its journal: which
// side-effect classes ran with and without a reconciler, whether an action went uncertain
// with and without one, compensations that worked and failed, and conflicting calls in one
// batch. CI's crash-injector seeds are chosen so that together they cover all of it.
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { RunStateAccumulator, type JournalEvent } from "@yoke/protocol";
import { createEffectLedger, generatedScenario } from "@yoke/testkit";

/** Everything the CI seeds must exercise between them. */
export const REQUIRED_COVERAGE = [
  "none",
  "idempotent+reconciler",
  "idempotent-reconciler",
  "reversible+reconciler",
  "reversible-reconciler",
  "irreversible+reconciler",
  "irreversible-reconciler",
  "uncertain+reconciler",
  "uncertain-reconciler",
  "retry",
  "compensated",
  "compensation_failed",
  "conflict",
] as const;
export type CoverageItem = (typeof REQUIRED_COVERAGE)[number];

/** The tools of `seed`'s scenario: side-effect class and whether each has a reconciler. */
function toolsOf(seed: number, dir: string): Map<string, { sideEffect: string; reconciler: boolean }> {
  // The ledger file is never written: only the tools' declarations are read.
  const scenario = generatedScenario(createEffectLedger(join(dir, "coverage-ledger.jsonl")), seed);
  return new Map(scenario.tools.map((tool) => [tool.name, { sideEffect: tool.sideEffect, reconciler: tool.reconcile !== undefined }]));
}

/** What the run of `seed` recorded in `events` exercised. */
export function coverageOf(seed: number, events: readonly JournalEvent[], dir: string): Set<CoverageItem> {
  const tools = toolsOf(seed, dir);
  const covered = new Set<CoverageItem>();
  const toolOf = new Map<string, string>();
  const batches = new Map<string, { resource: string; writes: boolean }[]>();
  // Folded, not only parsed: an action's input kept once in its response (`inputFromCall`) is given back.
  const accumulator = new RunStateAccumulator();
  for (const raw of events) {
    const event = accumulator.apply(raw);
    if (event.type === "action.proposed" || event.type === "action.admitted") {
      const { actionId, toolName, turnId, sideEffect } = event.data;
      toolOf.set(actionId, toolName);
      const tool = tools.get(toolName);
      if (sideEffect === "none") covered.add("none");
      else covered.add(`${sideEffect}${tool?.reconciler ? "+" : "-"}reconciler` as CoverageItem);
      const resource = (event.data.input as { resource?: unknown }).resource;
      if (typeof resource === "string") {
        const batch = batches.get(turnId) ?? [];
        if (batch.some((other) => other.resource === resource && (other.writes || sideEffect !== "none"))) covered.add("conflict");
        batch.push({ resource, writes: sideEffect !== "none" });
        batches.set(turnId, batch);
      }
    }
    if (event.type === "action.uncertain") {
      covered.add(tools.get(toolOf.get(event.data.actionId) ?? "")?.reconciler ? "uncertain+reconciler" : "uncertain-reconciler");
    }
    if (event.type === "action.leased" && event.data.attempt > 1) covered.add("retry");
    if (event.type === "action.compensated") covered.add("compensated");
    if (event.type === "action.compensation_failed") covered.add("compensation_failed");
  }
  return covered;
}

/** Reads the journal a scenario run left in `dir` (reference.ts writes `journal.sqlite`). */
export async function journalCoverage(seed: number, dir: string): Promise<Set<CoverageItem>> {
  const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite"), readOnly: true });
  try {
    const events: JournalEvent[] = [];
    for await (const event of journal.read({ tenantId: "tenant_demo", runId: "run_reference" })) events.push(event);
    return coverageOf(seed, events, dir);
  } finally {
    await journal.close();
  }
}

/** `items` in REQUIRED_COVERAGE order, for a summary line. */
export function describeCoverage(items: ReadonlySet<string>): string {
  return REQUIRED_COVERAGE.filter((item) => items.has(item)).join(", ");
}
