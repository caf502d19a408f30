import { DEFAULT_MAX_EVENT_BYTES } from "@yoke/journal";
import { YokeError } from "@yoke/protocol";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CommandContext } from "../cli/context.js";
import { parse } from "../cli/parse.js";
import type { CliJournal } from "../store/open-store.js";
import { checkExportFile, readExportBatches } from "../transfer/run-export.js";

export const IMPORT_USAGE = "yoke import <file|dir> [--journal FILE] [--json]";
/** One append holds at most this many events, or this many bytes of them (and always at least one event). */
const BATCH_EVENTS = 500;
const BATCH_BYTES = 8 * 1024 * 1024;

/**
 * `yoke import <file>`: verifies an exported run's chain, then appends its events to the
 * journal (created when missing) under the same tenant and run id, and checks that the
 * store sealed them to the same hashes. The file is read a chunk at a time, twice (check,
 * then append), so memory holds a batch of events, never the file. Refuses a broken chain
 * (JOURNAL_CHAIN_BROKEN, exit 1), an event larger than the journal's default maxEventBytes
 * (JOURNAL_EVENT_TOO_LARGE, exit 4), ids with control characters (RUN_ID_INVALID, exit 4) and
 * a run the journal already holds (RUN_ALREADY_EXISTS, exit 4), writing nothing. A directory
 * (a session's export) imports every `.json` export in it, each checked before any is written.
 */
export async function importCommand(context: CommandContext): Promise<number> {
  const { values, positionals } = parse(context.args, {}, { min: 1, max: 1, usage: IMPORT_USAGE });
  if (values.help) {
    context.out.lines([`usage: ${IMPORT_USAGE}`]);
    return 0;
  }
  const path = positionals[0]!;
  if (!existsSync(path)) throw new YokeError("RUN_NOT_FOUND", `cannot read ${path}: ENOENT`);
  // A directory is a session's export (`yoke export <session> --out DIR`): every run in it, or none.
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name.endsWith(".json"))
        .sort()
        .map((name) => join(path, name))
    : [path];
  if (files.length === 0) throw new YokeError("RUN_NOT_FOUND", `cannot read ${path}: no .json exports in it`);
  const runs = files.map((file) => ({ file, run: checked(context, file) }));
  const journal = await context.open(values.journal, { write: true, create: true });
  try {
    for (const { run } of runs) {
      const scope = { tenantId: run.tenantId, runId: run.runId };
      if ((await journal.head(scope)) !== null) {
        throw new YokeError("RUN_ALREADY_EXISTS", `the journal already holds run ${run.runId} for tenant ${run.tenantId}; nothing imported`, {
          details: { ...scope },
        });
      }
    }
    const summaries = [];
    for (const { file, run } of runs) summaries.push(await importRun(context, journal, file, run));
    context.progressDone();
    if (values.json) context.out.json(summaries.length === 1 && files[0] === path ? summaries[0] : { runs: summaries, journal: journal.location });
    else
      context.out.lines(
        summaries.map(
          (summary) =>
            `imported ${summary.events} events of ${summary.runId} (tenant ${summary.tenantId}) into ${journal.location}; chain verified, head ${summary.headHash.slice(0, 12)}`,
        ),
      );
    return 0;
  } finally {
    await journal.close();
  }
}

type CheckedExport = ReturnType<typeof checkExportFile>;

function checked(context: CommandContext, path: string): CheckedExport {
  if (!statSync(path).isFile()) throw new YokeError("RUN_NOT_FOUND", `cannot read ${path}: not a file`);
  try {
    return checkExportFile(path, DEFAULT_MAX_EVENT_BYTES, (count) => {
      if (count % 1000 === 0) context.progress(`checking ${path}: ${count} events`);
    });
  } catch (error) {
    if (YokeError.isInstance(error)) throw error;
    throw new YokeError("RUN_NOT_FOUND", `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Appends one checked export in batches, checking the store sealed each event to the export's hash. */
async function importRun(context: CommandContext, journal: CliJournal, path: string, run: CheckedExport) {
  const scope = { tenantId: run.tenantId, runId: run.runId };
  const total = run.hashes.length;
  let start = 0;
  for (const batch of readExportBatches(path, run, DEFAULT_MAX_EVENT_BYTES, { maxEvents: BATCH_EVENTS, maxBytes: BATCH_BYTES })) {
    context.progress(`importing ${run.runId}: ${start}/${total} events`);
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
    start += batch.length;
  }
  return { ...scope, events: total, headHash: run.headHash, journal: journal.location };
}
