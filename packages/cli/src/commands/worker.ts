import { lineLogger, runWorker, type LogLevel, type WorkerHarnessFactory, type WorkerRunReport } from "@yoke/runtime";
import type { CommandContext } from "../cli/context.js";
import { usageError } from "../cli/exit-codes.js";
import { parse, positiveInteger } from "../cli/parse.js";
import { loadFactory } from "./resume.js";

export const WORKER_USAGE =
  "yoke worker --harness <module> [--journal FILE] [--tenant T] [--interval MS] [--concurrency N] [--once] [--log-level debug|info|warn|error] [--json]";

const LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/**
 * The stop signals of a worker run from a shell: the first SIGINT or SIGTERM stops it
 * gracefully (no new run is taken, the runs in hand go on to their next stop); a second one
 * exits at once (130), leaving those runs to the next worker (their owner is then provably gone).
 */
function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      process.once("SIGINT", () => process.exit(130));
      process.once("SIGTERM", () => process.exit(130));
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/**
 * `yoke worker --harness <module>`: scans the journal for runs whose owner is gone (a crashed
 * process: its lease lapsed, or its owner is provably dead on this machine) that are neither
 * finished nor waiting for a person, and resumes each with the harness the module builds,
 * exactly once across any number of workers on the file. Logs JSON lines (pino) on stderr;
 * prints what it resumed on stdout when it stops (`--once`: after one scan and its runs).
 */
export async function workerCommand(context: CommandContext): Promise<number> {
  const { values } = parse(
    context.args,
    {
      harness: { type: "string" },
      interval: { type: "string" },
      concurrency: { type: "string" },
      once: { type: "boolean", default: false },
      "log-level": { type: "string" },
    },
    { min: 0, max: 0, usage: WORKER_USAGE },
  );
  if (values.help) {
    context.out.lines([`usage: ${WORKER_USAGE}`]);
    return 0;
  }
  if (values.harness === undefined) throw usageError("--harness <module> is required", WORKER_USAGE);
  const level = (values["log-level"] ?? "info") as LogLevel;
  if (!LEVELS.includes(level)) throw usageError(`--log-level must be one of ${LEVELS.join(", ")}`, WORKER_USAGE);
  const intervalMs = positiveInteger(values.interval, "--interval");
  const concurrency = positiveInteger(values.concurrency, "--concurrency");
  const factory = (await loadFactory(values.harness)) as unknown as WorkerHarnessFactory;
  const journal = await context.open(values.journal, { write: true });
  const stop = new AbortController();
  if (!values.once) void (context.io.stopSignal ?? untilSignal)().then(() => stop.abort());
  try {
    const tenant = values.tenant;
    const summary = await runWorker({
      journal,
      harness: factory,
      tenants: tenant === undefined ? () => journal.tenants() : [tenant],
      once: values.once,
      signal: stop.signal,
      logger: lineLogger((entry) => context.log(entry), level),
      ...(intervalMs === undefined ? {} : { intervalMs }),
      ...(concurrency === undefined ? {} : { concurrency }),
    });
    if (values.json) context.out.json({ journal: journal.location, scans: summary.scans, runs: summary.runs });
    else context.out.lines(summary.runs.length === 0 ? [`no run to resume in ${journal.location}`] : summary.runs.map(line));
    return summary.runs.some((run) => run.result === "failed") ? 4 : 0;
  } finally {
    await journal.close();
  }
}

function line(run: WorkerRunReport): string {
  const appended = run.appended === undefined ? "" : ` (${run.appended} event(s) appended)`;
  switch (run.result) {
    case "resumed":
      return `run ${run.runId} (${run.tenantId}): resumed: ${run.outcome ?? `waits (${run.waiting ?? "unknown"})`}${appended}`;
    case "owned_elsewhere":
      return `run ${run.runId} (${run.tenantId}): owned elsewhere (a live lease): left alone`;
    default:
      return `run ${run.runId} (${run.tenantId}): the resume failed (${run.error ?? "unknown"}); left for the next scan${appended}`;
  }
}
