/**
 * @yoke/cli — the `yoke` command, and the same commands as functions for scripts and tests.
 * Reads any journal store the user points it at (a SQLite file by default). Work in progress:
 * the commands land one at a time.
 */
export { main } from "./main.js";
export type { CliIo } from "./main.js";
export { exportRunOtlp } from "./commands/export-otlp.js";
export type { ExportRunOtlpOptions, ExportRunOtlpResult } from "./commands/export-otlp.js";
