import type { CommandContext } from "../cli/context.js";
import { usageError } from "../cli/exit-codes.js";
import { parse } from "../cli/parse.js";
import { startViewer } from "../viewer/index.js";

export const VIEW_USAGE = "yoke view [<run>] [--port N] [--journal FILE] [--json]";

/** Resolves on the first SIGINT or SIGTERM (Ctrl-C, or a service manager stopping the viewer). */
function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/**
 * `yoke view [<run>]`: serves the read-only run viewer on 127.0.0.1 (any free port, or
 * `--port N`), prints its URL (opened at the run when one is named) and runs until SIGINT or
 * SIGTERM, then stops the server and closes the journal.
 */
export async function viewCommand(context: CommandContext): Promise<number> {
  const { values, positionals } = parse(context.args, { port: { type: "string" } }, { min: 0, max: 1, usage: VIEW_USAGE });
  if (values.help) {
    context.out.lines([`usage: ${VIEW_USAGE}`]);
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw usageError(`--port must be an integer from 0 to 65535, not ${JSON.stringify(values.port)}`);
  const journal = await context.open(values.journal);
  try {
    // Listen for the stop signals before the URL is printed: a stop sent right after it is not lost.
    const stopped = (context.io.stopSignal ?? untilSignal)();
    const viewer = await startViewer({ journal, port, ...(positionals[0] === undefined ? {} : { runId: positionals[0] }) });
    try {
      if (values.json) context.out.json({ url: viewer.url, journal: journal.location });
      else context.out.lines([`yoke view: ${viewer.url} (${journal.location}); Ctrl-C stops it`]);
      await stopped;
    } finally {
      await viewer.close();
    }
    return 0;
  } finally {
    await journal.close();
  }
}
