import { createMemoryJournal } from "@yoke/journal";
import { YokeError } from "@yoke/protocol";
import { replay, type Harness } from "@yoke/runtime";
import type { CommandContext } from "../cli/context.js";
import { usageError } from "../cli/exit-codes.js";
import { parse } from "../cli/parse.js";
import { findRun } from "../inspect/load-run.js";
import { loadFactory } from "./resume.js";

export const REPLAY_USAGE = "yoke replay <run> --harness <module> [--checks recorded|rerun] [--tenant T] [--journal FILE] [--json]";

/**
 * `yoke replay <run> --harness <module>`: re-drives a recorded run through the code the
 * module builds, with the recorded model answers and tool outcomes, and compares every event.
 * The factory gets a scratch memory journal (replay never writes to the recorded one); the
 * harness it returns must come from `createHarness`. A divergence is REPLAY_DIVERGED, exit 1.
 * `--checks rerun` runs replay-safe verifiers again and compares their verdicts (default:
 * `recorded`, each check's verdict from the record, as replay rebuilds no world a check reads).
 */
export async function replayCommand(context: CommandContext): Promise<number> {
  const { values, positionals } = parse(context.args, { harness: { type: "string" }, checks: { type: "string" } }, { min: 1, max: 1, usage: REPLAY_USAGE });
  if (values.help) {
    context.out.lines([`usage: ${REPLAY_USAGE}`]);
    return 0;
  }
  if (values.harness === undefined) throw usageError("--harness <module> is required", REPLAY_USAGE);
  const checks = values.checks;
  if (checks !== undefined && checks !== "recorded" && checks !== "rerun") throw usageError("--checks is recorded or rerun", REPLAY_USAGE);
  const factory = await loadFactory(values.harness);
  const journal = await context.open(values.journal);
  try {
    const scope = await findRun(journal, positionals[0]!, values.tenant);
    const harness = (await factory({ journal: createMemoryJournal(), ...scope })) as Harness | null;
    if (harness === null || typeof harness !== "object" || typeof harness.start !== "function") {
      throw new YokeError("CONFIG_INVALID", `--harness ${values.harness}: the factory returned no harness made by createHarness`);
    }
    const report = await replay({ journal, ...scope }, harness, checks === undefined ? {} : { checks });
    if (values.json) {
      context.out.json({ ...scope, divergences: 0, ...report });
    } else {
      const streams = Object.keys(report.streams).length;
      const processes = report.processes === 1 ? "" : `, ${report.processes} processes`;
      context.out.lines([
        `run ${scope.runId}: ${report.events} events replayed, 0 divergences (${report.status}; ${streams} stream${streams === 1 ? "" : "s"}${processes})`,
      ]);
    }
    return 0;
  } finally {
    await journal.close();
  }
}
