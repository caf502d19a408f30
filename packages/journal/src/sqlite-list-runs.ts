import type { RunSummary } from "@yoke/protocol";
import type { Kysely } from "kysely";
import { toJournalError } from "./sqlite-errors.js";
import type { JournalTables } from "./sqlite-migrations.js";

export { LIST_RUNS_PAGE_SIZE } from "./create-journal.js";

/**
 * One page (up to `limit`) of a tenant's runs, ordered by run id, starting after `afterRunId`. Length and
 * last timestamp come from the highest sequence number, as `head()` does.
 */
export async function listRunsPage(kysely: Kysely<JournalTables>, tenantId: string, afterRunId: string | null, limit: number): Promise<RunSummary[]> {
  const bounds = kysely
    .selectFrom("events")
    .select((eb) => ["run_id", eb.fn.min("seq").as("first_seq"), eb.fn.max("seq").as("last_seq")])
    .where("tenant_id", "=", tenantId)
    .$if(afterRunId !== null, (query) => query.where("run_id", ">", afterRunId as string))
    .groupBy("run_id")
    .orderBy("run_id")
    .limit(limit)
    .as("bounds");
  try {
    const rows = await kysely
      .selectFrom(bounds)
      .innerJoin("events as first", (join) =>
        join.on("first.tenant_id", "=", tenantId).onRef("first.run_id", "=", "bounds.run_id").onRef("first.seq", "=", "bounds.first_seq"),
      )
      .innerJoin("events as last", (join) =>
        join.on("last.tenant_id", "=", tenantId).onRef("last.run_id", "=", "bounds.run_id").onRef("last.seq", "=", "bounds.last_seq"),
      )
      .select(["bounds.run_id", "bounds.last_seq", "first.at as first_at", "last.at as last_at"])
      .orderBy("bounds.run_id")
      .execute();
    return rows.map((row) => ({
      tenantId,
      runId: row.run_id,
      length: Number(row.last_seq) + 1,
      firstAt: Number(row.first_at),
      lastAt: Number(row.last_at),
    }));
  } catch (error) {
    throw toJournalError(error, "list runs");
  }
}
