import type { CommandContext } from "../cli/context.js";
import { parse, positiveInteger } from "../cli/parse.js";
import { table, time } from "../format/text.js";
import { clip } from "../inspect/clip.js";
import { listSessions, type SessionSummary } from "../inspect/list-sessions.js";

export const SESSIONS_USAGE = "yoke sessions [--tenant T] [--limit N] [--journal FILE] [--json]";

/** `yoke sessions`: the journal's sessions (runs sharing a conversation), most recently active first. */
export async function sessionsCommand(context: CommandContext): Promise<number> {
  const { values } = parse(context.args, { limit: { type: "string" } }, { min: 0, max: 0, usage: SESSIONS_USAGE });
  if (values.help) {
    context.out.lines([`usage: ${SESSIONS_USAGE}`]);
    return 0;
  }
  const limit = positiveInteger(values.limit, "--limit");
  const journal = await context.open(values.journal);
  try {
    const all = await listSessions(journal, values.tenant === undefined ? {} : { tenantId: values.tenant });
    const sessions = limit === undefined ? all : all.slice(0, limit);
    if (values.json) {
      context.out.json({ journal: journal.location, sessions: sessions.map(sessionJson) });
      return 0;
    }
    if (sessions.length === 0) {
      context.out.lines([`no sessions in ${journal.location}`]);
      return 0;
    }
    const rows = sessions.map((session) => [
      session.tenantId,
      session.sessionId,
      String(session.runs.length),
      time(session.firstAt),
      time(session.lastAt),
      session.lastOutcome === undefined ? session.lastStatus : `${session.lastStatus}: ${session.lastOutcome}`,
      clip(session.runs.at(-1)!.task, 40),
    ]);
    context.out.lines(table([["TENANT", "SESSION", "RUNS", "FIRST", "LAST", "LAST OUTCOME", "LAST INPUT"], ...rows]));
    return 0;
  } finally {
    await journal.close();
  }
}

/** A session for `--json`: its runs by id, status and outcome. */
export function sessionJson(session: SessionSummary) {
  return {
    tenantId: session.tenantId,
    sessionId: session.sessionId,
    firstAt: session.firstAt,
    lastAt: session.lastAt,
    lastStatus: session.lastStatus,
    lastOutcome: session.lastOutcome,
    runs: session.runs.map((run) => ({
      runId: run.runId,
      status: run.status,
      outcome: run.outcome,
      turns: run.turns,
      startedAt: run.startedAt,
      task: run.task,
    })),
  };
}

/** `yoke show <session>`: the session's runs, oldest first. */
export function sessionLines(session: SessionSummary): string[] {
  const rows = session.runs.map((run) => [
    run.runId,
    run.outcome === undefined ? run.status : `${run.status}: ${run.outcome}`,
    String(run.turns),
    time(run.startedAt),
    time(run.lastEventAt),
    clip(run.task, 50),
  ]);
  return [
    `session ${session.sessionId} (tenant ${session.tenantId}): ${session.runs.length} run${session.runs.length === 1 ? "" : "s"}, ${time(session.firstAt)} to ${time(session.lastAt)}`,
    "",
    ...table([["RUN", "STATUS", "TURNS", "STARTED", "LAST EVENT", "INPUT"], ...rows]),
  ];
}
