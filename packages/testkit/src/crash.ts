/**
 * @yoke/testkit/crash — the crash injector: `runCrashInjector` runs your scenario script once
 * crash-free, then once killed at every kill point and resumed, and compares the outcomes;
 * inside the script, `crashInjection(journal)` wraps the journal so it dies at the planned
 * point and `printScenarioReport(report)` hands the outcome back. Node only (child
 * processes); no peer dependencies.
 */
export { ACK_LOG_ENV, CRASH_PLAN_ENV, KILL_POINTS, crashInjection, crashPlanFromEnv } from "./crash-point.js";
export type { CrashPlan, CrashingJournal, KillPoint } from "./crash-point.js";
export { SCENARIO_REPORT_ENV, SCENARIO_REPORT_PREFIX, printScenarioReport, runCrashInjector } from "./crash-injector.js";
export type { CrashInjectorOptions, CrashInjectorResult, KillPointResult, ScenarioReport } from "./crash-injector.js";
