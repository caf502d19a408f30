import type { CommandContext } from "../cli/context.js";
import { parse } from "../cli/parse.js";
import { table } from "../format/text.js";
import { listReleases } from "../inspect/list-releases.js";

export const RELEASES_USAGE = "yoke releases [--tenant T] [--journal FILE] [--json]";

/** `yoke releases`: which runs are pinned to which release, and which of them are still in flight. */
export async function releasesCommand(context: CommandContext): Promise<number> {
  const { values } = parse(context.args, {}, { min: 0, max: 0, usage: RELEASES_USAGE });
  if (values.help) {
    context.out.lines([`usage: ${RELEASES_USAGE}`]);
    return 0;
  }
  const journal = await context.open(values.journal);
  try {
    const { releases, unreadable } = await listReleases(journal, values.tenant);
    if (values.json) {
      context.out.json({ journal: journal.location, releases, unreadable });
      return 0;
    }
    if (releases.length === 0) {
      context.out.lines([`no runs in ${journal.location}`]);
      return 0;
    }
    const rows = releases.map((entry) => [
      entry.key,
      entry.release.runtime,
      String(entry.release.eventSchemaVersion),
      String(entry.runs),
      String(entry.inFlight),
      String(entry.finished),
    ]);
    const inFlight = releases.flatMap((entry) => entry.inFlightRuns.map((run) => [entry.key, run.tenantId, run.runId, run.status]));
    context.out.lines([
      ...table([["RELEASE", "RUNTIME", "SCHEMA", "RUNS", "IN FLIGHT", "FINISHED"], ...rows]),
      ...(inFlight.length === 0 ? ["", "no runs in flight"] : ["", ...table([["RELEASE", "TENANT", "RUN", "STATUS"], ...inFlight])]),
      ...(unreadable === 0 ? [] : ["", `${unreadable} run(s) could not be read far enough to know their release (see yoke verify)`]),
    ]);
    return 0;
  } finally {
    await journal.close();
  }
}
