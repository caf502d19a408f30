import { budgetReport, formatBudgetReport } from "@yoke/budget";
import { parseYokeEvent, type JournalEvent, type YokeEvent } from "@yoke/protocol";
import type { CommandContext } from "../cli/context.js";
import { EXIT } from "../cli/exit-codes.js";
import { parse } from "../cli/parse.js";
import { showText } from "../format/show-text.js";
import { inspectRun } from "../inspect/inspect-run.js";
import { findRun } from "../inspect/load-run.js";
import { readRun } from "../inspect/read-run.js";

export const SHOW_USAGE = "yoke show <run> [--tenant T] [--events] [--journal FILE] [--json]";

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

/** `yoke show <run>`: the run's turns, model calls, actions with their state strip, usage and cost; exit 1 when its chain is broken. */
export async function showCommand(context: CommandContext): Promise<number> {
  const { values, positionals } = parse(context.args, { events: { type: "boolean", default: false } }, { min: 1, max: 1, usage: SHOW_USAGE });
  if (values.help) {
    context.out.lines([`usage: ${SHOW_USAGE}`]);
    return 0;
  }
  const journal = await context.open(values.journal);
  try {
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
