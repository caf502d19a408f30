import { pino, type Logger } from "pino";

export type { Logger };

/**
 * The default logger: pino at level `silent`. Pass your own pino logger to see the loop.
 *
 * What the harness logs, by design: ids (tenant, run, turn, action, attempt), sequence
 * numbers, event types, tool names, durations, stop reasons and error codes. Never tool
 * input or output, messages, the task, error messages or anything else a model or tool
 * produced, which may carry secrets.
 */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
