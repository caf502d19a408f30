import { listRuns } from "../inspect/list-runs.js";
import type { RunStatus } from "../inspect/run-view.js";
import type { CommandContext } from "../cli/context.js";
import { usageError } from "../cli/exit-codes.js";
import { parse, positiveInteger } from "../cli/parse.js";
import { table, time } from "../format/text.js";
import { clip } from "../inspect/clip.js";

export const RUNS_USAGE = "yoke runs [--tenant T] [--status running|waiting|failed|finished] [--outcome O] [--limit N] [--journal FILE] [--json]";
const STATUSES: readonly RunStatus[] = ["running", "waiting", "failed", "finished"];

/** `yoke runs`: the journal's runs, most recently active first. */
export async function runsCommand(context: CommandContext): Promise<number> {
  const { values } = parse(
    context.args,
    { status: { type: "string" }, outcome: { type: "string" }, limit: { type: "string" } },
    { min: 0, max: 0, usage: RUNS_USAGE },
  );
  if (values.help) {
    context.out.lines([`usage: ${RUNS_USAGE}`]);
    return 0;
  }
  const status = values.status as RunStatus | undefined;
  if (status !== undefined && !STATUSES.includes(status)) throw usageError(`--status must be one of ${STATUSES.join(", ")}`);
  const limit = positiveInteger(values.limit, "--limit");
  const journal = await context.open(values.journal);
  try {
    const runs = await listRuns(journal, {
      ...(values.tenant === undefined ? {} : { tenantId: values.tenant }),
      ...(status === undefined ? {} : { status }),
      ...(values.outcome === undefined ? {} : { outcome: values.outcome }),
      ...(limit === undefined ? {} : { limit }),
    });
    if (values.json) {
      context.out.json({ journal: journal.location, runs });
      return 0;
    }
    if (runs.length === 0) {
      context.out.lines([`no runs in ${journal.location}`]);
      return 0;
    }
    const rows = runs.map((run) => [
      run.tenantId,
      run.runId,
      run.readError ? `BROKEN at seq ${run.readError.atSeq}` : run.outcome === undefined ? run.status : `${run.status}: ${run.outcome}`,
      String(run.turns),
      String(run.events),
      time(run.startedAt),
      time(run.lastEventAt),
      clip(run.task, 50),
    ]);
    context.out.lines(table([["TENANT", "RUN", "STATUS", "TURNS", "EVENTS", "STARTED", "LAST EVENT", "TASK"], ...rows]));
    return 0;
  } finally {
    await journal.close();
  }
}
