import { budgetReport, formatBudgetReport } from "@yoke/budget";
import { YokeError, parseYokeEvent, type JournalEvent, type YokeEvent } from "@yoke/protocol";
import type { CommandContext } from "../cli/context.js";
import { EXIT } from "../cli/exit-codes.js";
import { parse } from "../cli/parse.js";
import { showText } from "../format/show-text.js";
import { inspectRun } from "../inspect/inspect-run.js";
import { findRun } from "../inspect/load-run.js";
import { readRun } from "../inspect/read-run.js";
import { listSessions } from "../inspect/list-sessions.js";
import type { CliJournal } from "../store/open-store.js";
import { sessionJson, sessionLines } from "./sessions.js";

export const SHOW_USAGE = "yoke show <run|session> [--tenant T] [--events] [--journal FILE] [--json]";

/** The budget report of @yoke/budget over the run's events, or nothing when it has no budget (or the events do not fold). */
function budgetText(events: readonly JournalEvent[]): string[] {
  try {
    const parsed: YokeEvent[] = events.map((event) => parseYokeEvent(event));
    if (!parsed.some((event) => event.type === "budget.opened")) return [];
    return ["", "budget report:", ...formatBudgetReport(budgetReport(parsed)).split("\n")];
  } catch {
    return [];
  }
}

/** `yoke show <session>`: its runs in order (RUN_NOT_FOUND when no run names it). */
async function showSession(
  context: CommandContext,
  journal: CliJournal,
  sessionId: string,
  tenantId: string | undefined,
  json: boolean | undefined,
): Promise<number> {
  const sessions = await listSessions(journal, { sessionId, ...(tenantId === undefined ? {} : { tenantId }) });
  if (sessions.length === 0) {
    throw new YokeError("RUN_NOT_FOUND", `no session ${sessionId} in the journal${tenantId === undefined ? "" : ` for tenant ${tenantId}`}`, {
      details: { runId: sessionId, ...(tenantId === undefined ? {} : { tenantId }) },
    });
  }
  if (sessions.length > 1) {
    throw new YokeError(
      "CONFIG_INVALID",
      `session ${sessionId} exists for several tenants (${sessions.map((session) => session.tenantId).join(", ")}): pass --tenant`,
      {
        details: { sessionId },
      },
    );
  }
  if (json) context.out.json(sessionJson(sessions[0]!));
  else context.out.lines(sessionLines(sessions[0]!));
  return EXIT.ok;
}

/** `yoke show <run>`: the run's turns, model calls, actions with their state strip, usage and cost; exit 1 when its chain is broken. */
export async function showCommand(context: CommandContext): Promise<number> {
  const { values, positionals } = parse(context.args, { events: { type: "boolean", default: false } }, { min: 1, max: 1, usage: SHOW_USAGE });
  if (values.help) {
    context.out.lines([`usage: ${SHOW_USAGE}`]);
    return 0;
  }
  const journal = await context.open(values.journal);
  try {
    if (positionals[0]!.startsWith("session_")) return await showSession(context, journal, positionals[0]!, values.tenant, values.json);
    const scope = await findRun(journal, positionals[0]!, values.tenant);
    const { events } = await readRun(journal, scope, (count) => {
      if (count % 1000 === 0) context.progress(`reading ${scope.runId}: ${count} events`);
    });
    context.progressDone();
    const verification = await journal.verify(scope);
    const view = inspectRun(events, { verification });
    if (values.json) context.out.json(view);
    else context.out.lines([...showText(view, { events: values.events }), ...budgetText(events)]);
    return verification.ok ? EXIT.ok : EXIT.checkFailed;
  } finally {
    await journal.close();
  }
}
