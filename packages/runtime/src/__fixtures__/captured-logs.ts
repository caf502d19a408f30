// A pino logger whose lines a test reads back, for the log lines mutation testing (issue 17) pins.
import { pino } from "pino";

/** A pino logger whose lines the test reads back: each line's own fields, without pino's and the run's. */
export function capturedLogs() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const said = (msg: string) =>
    lines
      .filter((line) => line.msg === msg)
      .map(({ msg: _msg, level: _level, time: _time, pid: _pid, hostname: _host, tenantId: _tenant, runId: _run, ...rest }) => rest);
  return { logger, said };
}
