import { YokeError, type JournalV1, type RunScope } from "@yoke/protocol";
import { inspectRun } from "./inspect-run.js";
import type { TenantListing } from "./list-runs.js";
import { readRun } from "./read-run.js";
import type { RunView } from "./run-view.js";

/**
 * The scope of run `runId`: in `tenantId` when given, else in whichever tenant holds it
 * (CONFIG_INVALID when several do: name the tenant). RUN_NOT_FOUND when none does.
 *
 * @example
 * ```ts
 * const scope = await findRun(journal, "run_quickstart"); // { tenantId: "tenant_demo", runId: "run_quickstart" }
 * ```
 */
export async function findRun(journal: JournalV1 & Partial<TenantListing>, runId: string, tenantId?: string): Promise<RunScope> {
  const tenants = tenantId !== undefined ? [tenantId] : typeof journal.tenants === "function" ? await journal.tenants() : [];
  if (tenantId === undefined && typeof journal.tenants !== "function") {
    throw new YokeError("CONFIG_INVALID", `this journal cannot list its tenants: name the tenant of ${runId}`, { details: { runId } });
  }
  const holders: string[] = [];
  for (const tenant of tenants) if ((await journal.head({ tenantId: tenant, runId })) !== null) holders.push(tenant);
  if (holders.length === 0) {
    throw new YokeError("RUN_NOT_FOUND", tenantId === undefined ? `no run ${runId} in the journal` : `no run ${runId} for tenant ${tenantId}`, {
      details: { runId, ...(tenantId === undefined ? {} : { tenantId }) },
    });
  }
  if (holders.length > 1) {
    throw new YokeError("CONFIG_INVALID", `run ${runId} exists for several tenants (${holders.join(", ")}): pass --tenant`, {
      details: { runId, tenants: holders },
    });
  }
  return { tenantId: holders[0]!, runId };
}

/**
 * Reads a run, verifies its chain and builds its run model: what `yoke show` and the viewer
 * display. A run whose chain breaks is shown up to the break, with `chain.ok === false`.
 *
 * @example
 * ```ts
 * const view = await loadRunView(journal, { tenantId: "tenant_demo", runId: "run_quickstart" });
 * if (view.chain.checked && !view.chain.ok) console.log("tampered at", view.chain.firstBadSeq);
 * ```
 */
export async function loadRunView(journal: JournalV1, scope: RunScope): Promise<RunView> {
  const { events } = await readRun(journal, scope);
  const verification = await journal.verify(scope);
  if (events.length === 0) {
    throw new YokeError("JOURNAL_CHAIN_BROKEN", `run ${scope.runId} breaks at its first event`, { details: { ...scope } });
  }
  return inspectRun(events, { verification });
}
