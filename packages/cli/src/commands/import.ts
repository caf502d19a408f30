import { readFileSync } from "node:fs";
import { YokeError } from "@yoke/protocol";
import type { CommandContext } from "../cli/context.js";
import { parse } from "../cli/parse.js";
import { parseRunExport } from "../transfer/run-export.js";

export const IMPORT_USAGE = "yoke import <file> [--journal FILE] [--json]";
const BATCH = 500;

/**
 * `yoke import <file>`: verifies an exported run's chain, then appends its events to the
 * journal (created when missing) under the same tenant and run id, and checks that the
 * store sealed them to the same hashes. Refuses a broken chain (JOURNAL_CHAIN_BROKEN, exit
 * 1) and a run the journal already holds (RUN_ALREADY_EXISTS, exit 4), writing nothing.
 */
export async function importCommand(context: CommandContext): Promise<number> {
  const { values, positionals } = parse(context.args, {}, { min: 1, max: 1, usage: IMPORT_USAGE });
  if (values.help) {
    context.out.lines([`usage: ${IMPORT_USAGE}`]);
    return 0;
  }
  let text: string;
  try {
    text = readFileSync(positionals[0]!, "utf8");
  } catch (error) {
    throw new YokeError("RUN_NOT_FOUND", `cannot read ${positionals[0]}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const run = parseRunExport(text);
  const scope = { tenantId: run.tenantId, runId: run.runId };
  const journal = await context.open(values.journal, { write: true, create: true });
  try {
    if ((await journal.head(scope)) !== null) {
      throw new YokeError("RUN_ALREADY_EXISTS", `the journal already holds run ${run.runId} for tenant ${run.tenantId}; nothing imported`, {
        details: { ...scope },
      });
    }
    for (let start = 0; start < run.events.length; start += BATCH) {
      context.progress(`importing ${run.runId}: ${start}/${run.events.length} events`);
      const batch = run.events.slice(start, start + BATCH);
      const result = await journal.append(
        scope,
        start,
        batch.map((event) => ({ type: event.type, at: event.at, causationId: event.causationId, data: event.data })),
      );
      const differs = result.events.find((stored, index) => stored.hash !== batch[index]!.hash);
      if (differs) {
        throw new YokeError("JOURNAL_CHAIN_BROKEN", `event ${differs.seq} was sealed to another hash by this journal than in the export`, {
          details: { seq: differs.seq },
        });
      }
    }
    context.progressDone();
    const summary = { ...scope, events: run.events.length, headHash: run.headHash, journal: journal.location };
    if (values.json) context.out.json(summary);
    else
      context.out.lines([
        `imported ${run.events.length} events of ${run.runId} (tenant ${run.tenantId}) into ${journal.location}; chain verified, head ${run.headHash.slice(0, 12)}`,
      ]);
    return 0;
  } finally {
    await journal.close();
  }
}
