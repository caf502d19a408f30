import { pino } from "pino";

/** One log method: structured fields first, then an optional message (pino's and console's shape). */
export type LogMethod = (fields: Record<string, unknown>, message?: string) => void;

/**
 * What the harness logs through: four levels and, optionally, `child(bindings)`. pino's
 * loggers satisfy it (and one is the default); so does `console`, and any object with these
 * methods. Without `child`, the harness adds the bindings to each call's fields itself.
 *
 * What the harness logs, by design: ids (tenant, run, turn, action, attempt), sequence
 * numbers, event types, tool names, durations, stop reasons and error codes. Never tool
 * input or output, messages, the task, error messages or anything else a model or tool
 * produced, which may carry secrets.
 *
 * @example
 * ```ts
 * createHarness({ journal, provider, tools, tenantId, logger: console });
 * createHarness({ journal, provider, tools, tenantId, logger: pino({ level: "info" }) });
 * ```
 */
export interface Logger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  child?(bindings: Record<string, unknown>): Logger;
}

/** The logger the harness uses internally: always has `child`. */
export interface BoundLogger extends Logger {
  child(bindings: Record<string, unknown>): BoundLogger;
}

const LEVELS = ["debug", "info", "warn", "error"] as const;

/** `logger` with a `child` that works whether or not it has its own. */
export function bindLogger(logger: Logger, bindings: Record<string, unknown> = {}): BoundLogger {
  if (Object.keys(bindings).length === 0 && typeof logger.child === "function") return ownChild(logger);
  const methods = Object.fromEntries(
    LEVELS.map((level) => [
      level,
      (fields: Record<string, unknown>, message?: string) =>
        message === undefined ? logger[level]({ ...bindings, ...fields }) : logger[level]({ ...bindings, ...fields }, message),
    ]),
  ) as Record<(typeof LEVELS)[number], LogMethod>;
  return { ...methods, child: (more) => bindLogger(logger, { ...bindings, ...more }) };
}

function ownChild(logger: Logger): BoundLogger {
  return {
    debug: (fields, message) => call(logger, "debug", fields, message),
    info: (fields, message) => call(logger, "info", fields, message),
    warn: (fields, message) => call(logger, "warn", fields, message),
    error: (fields, message) => call(logger, "error", fields, message),
    child: (bindings) => ownChild(logger.child!(bindings)),
  };
}

function call(logger: Logger, level: (typeof LEVELS)[number], fields: Record<string, unknown>, message: string | undefined): void {
  if (message === undefined) logger[level](fields);
  else logger[level](fields, message);
}

/** The default logger: pino at level `silent`. Pass your own (pino, console, …) to see the loop. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
