import { pino } from "pino";
import type { Logger } from "../logger.js";

/** The levels a worker's log is filtered at. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * A pino logger that writes one JSON line per entry through `write` (the `yoke worker` CLI
 * passes stderr), at `level` and above.
 *
 * @example
 * ```ts
 * const logger = lineLogger((line) => process.stderr.write(line), "info");
 * await runWorker({ journal, tenants, harness, logger });
 * ```
 */
export function lineLogger(write: (line: string) => void, level: LogLevel = "info"): Logger {
  return pino({ level }, { write });
}
