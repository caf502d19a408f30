import { writeFileSync } from "node:fs";
import { YokeError } from "@yoke/protocol";
import type { CommandContext } from "../cli/context.js";
import { usageError } from "../cli/exit-codes.js";
import { parse } from "../cli/parse.js";
import { findRun } from "../inspect/load-run.js";
import { readRun } from "../inspect/read-run.js";
import { exportRun } from "../transfer/run-export.js";
import { exportSession } from "../transfer/session-export.js";

export const EXPORT_USAGE =
  "yoke export <run> [--out FILE | --otlp URL] [--tenant T] [--journal FILE] [--json]\n       yoke export <session> --out DIR [--tenant T] [--journal FILE] [--json]";

/**
 * `yoke export <run>`: the run's events as canonical JSON (stdout, or `--out FILE`), each
 * with its envelope and hash, so `yoke import` (or anyone) can verify the chain. A run whose
 * chain is broken is not exported (JOURNAL_CHAIN_BROKEN, exit 1). With `--otlp URL`, the
 * run's spans (GenAI semantic conventions, @yoke/otel) go to that OTLP/HTTP traces endpoint
 * instead (EXPORT_FAILED, exit 4, when the collector refuses them or cannot be reached).
 */
export async function exportCommand(context: CommandContext): Promise<number> {
  const { values, positionals } = parse(context.args, { out: { type: "string" }, otlp: { type: "string" } }, { min: 1, max: 1, usage: EXPORT_USAGE });
  if (values.help) {
    context.out.lines([`usage: ${EXPORT_USAGE}`]);
    return 0;
  }
  if (values.out !== undefined && values.otlp !== undefined) throw usageError("--out and --otlp cannot be combined", EXPORT_USAGE);
  if (positionals[0]!.startsWith("session_")) {
    if (values.out === undefined || values.otlp !== undefined) throw usageError("a session exports to a directory: pass --out DIR", EXPORT_USAGE);
    return exportSession(context, positionals[0]!, { out: values.out, journal: values.journal, tenantId: values.tenant, json: values.json });
  }
  const journal = await context.open(values.journal);
  try {
    const scope = await findRun(journal, positionals[0]!, values.tenant);
    const { events, error } = await readRun(journal, scope, (count) => {
      if (count % 500 === 0) context.progress(`exporting ${scope.runId}: ${count} events read`);
    });
    context.progressDone();
    if (error) {
      throw new YokeError(error.code, `run ${scope.runId} cannot be exported: ${error.message}`, { details: { ...scope, readEvents: events.length } });
    }
    if (values.otlp !== undefined) {
      const { exportRunOtlp } = await import("./export-otlp.js");
      const sent = await exportRunOtlp(events, { url: values.otlp });
      const summary = { ...scope, events: events.length, spans: sent.spans, traceIds: sent.traceIds, url: values.otlp };
      if (values.json) context.out.json(summary);
      else context.out.lines([`exported ${sent.spans} spans of ${scope.runId} to ${values.otlp} (trace ${sent.traceIds.join(", ")})`]);
      return 0;
    }
    const text = exportRun(events);
    if (values.out === undefined) {
      context.out.exact(text);
    } else {
      writeFileSync(values.out, text);
      const summary = { ...scope, events: events.length, headHash: events.at(-1)!.hash, out: values.out };
      if (values.json) context.out.json(summary);
      else context.out.lines([`exported ${events.length} events of ${scope.runId} (tenant ${scope.tenantId}) to ${values.out}`]);
    }
    return 0;
  } finally {
    await journal.close();
  }
}
