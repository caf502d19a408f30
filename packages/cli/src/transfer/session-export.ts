import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SESSION_STREAM_SUFFIX, YokeError } from "@yoke/protocol";
import type { CommandContext } from "../cli/context.js";
import { listSessions } from "../inspect/list-sessions.js";
import { readRun } from "../inspect/read-run.js";
import { exportRun } from "./run-export.js";

/**
 * `yoke export <session> --out DIR`: the whole session as run exports in one directory, one
 * file per run (`<runId>.json`) and one for the session's stream (which orders its runs), each
 * the canonical document `yoke export <run>` writes; `yoke import DIR` takes them all or none.
 * A run whose chain is broken stops the export (its code, exit 1).
 */
export async function exportSession(
  context: CommandContext,
  sessionId: string,
  options: { out: string; journal: string | undefined; tenantId: string | undefined; json: boolean | undefined },
): Promise<number> {
  const { out, tenantId, json } = options;
  const journal = await context.open(options.journal);
  try {
    const sessions = await listSessions(journal, { sessionId, ...(tenantId === undefined ? {} : { tenantId }) });
    if (sessions.length === 0) throw new YokeError("RUN_NOT_FOUND", `no session ${sessionId} in the journal`, { details: { runId: sessionId } });
    if (sessions.length > 1) {
      throw new YokeError(
        "CONFIG_INVALID",
        `session ${sessionId} exists for several tenants (${sessions.map((session) => session.tenantId).join(", ")}): pass --tenant`,
        {
          details: { sessionId },
        },
      );
    }
    const session = sessions[0]!;
    const stream = { tenantId: session.tenantId, runId: `${sessionId}${SESSION_STREAM_SUFFIX}` };
    const scopes = [...session.runs.map((run) => ({ tenantId: run.tenantId, runId: run.runId })), ...((await journal.head(stream)) === null ? [] : [stream])];
    mkdirSync(out, { recursive: true });
    const written: { runId: string; events: number; file: string }[] = [];
    for (const scope of scopes) {
      const { events, error } = await readRun(journal, scope);
      if (error) throw new YokeError(error.code, `run ${scope.runId} of session ${sessionId} cannot be exported: ${error.message}`, { details: { ...scope } });
      const file = join(out, `${scope.runId}.json`);
      writeFileSync(file, exportRun(events));
      written.push({ runId: scope.runId, events: events.length, file });
    }
    if (json) context.out.json({ tenantId: session.tenantId, sessionId, out, runs: written });
    else context.out.lines([`exported session ${sessionId} (tenant ${session.tenantId}): ${session.runs.length} runs and its stream to ${out}`]);
    return 0;
  } finally {
    await journal.close();
  }
}
