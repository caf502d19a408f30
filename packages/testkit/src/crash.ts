/**
 * @yoke/testkit/crash — the crash injector: `runCrashInjector` runs your scenario script once
 * crash-free, then once killed at every kill point and resumed, and compares the outcomes;
 * inside the script, `crashInjection(journal)` wraps the journal so it dies at the planned
 * point and `printScenarioReport(report)` hands the outcome back. For a test that chooses its
 * own kill moments: `ScriptProcess` runs a scenario script, waits for its lines and kills it;
 * inside the script, `scenarioStdio`, `modelAfterJournal` (a scripted model that continues after
 * the journal's answers) and `runScenario` speak the other side. Node only (child processes);
 * no peer dependencies.
 */
export { ACK_LOG_ENV, CRASH_PLAN_ENV, KILL_POINTS, crashInjection, crashPlanFromEnv } from "./crash-point.js";
export type { CrashPlan, CrashingJournal, KillPoint } from "./crash-point.js";
export { SCENARIO_REPORT_ENV, SCENARIO_REPORT_PREFIX, printScenarioReport, runCrashInjector } from "./crash-injector.js";
export type { CrashInjectorOptions, CrashInjectorResult, KillPointResult, ScenarioReport } from "./crash-injector.js";
export { ScriptProcess } from "./scenario-process.js";
export type { Ended } from "./scenario-process.js";
export { modelAfterJournal, runScenario, scenarioStdio, seededRandom } from "./scenario-script.js";
export type { ModelAfterJournalOptions, ScenarioStdio } from "./scenario-script.js";
