/**
 * @yoke/testkit/security — the AgentDojo v1 dev set (banking and slack bundled; MIT, see
 * LICENSE-agentdojo.txt), or any suite folder in its JSON format (`loadSuite`), as a security
 * suite for a harness: the environment with the `important_instructions` attack in every
 * vector a user task sees, the suites' tools as protocol tools whose policy facts are data
 * (tool declarations), the predicate language, an obedient scripted model, a pair runner that
 * takes your harness factory, simulated approvers, and the report (text and JSON).
 *
 * @example
 * ```ts
 * import { agentDojoSuite, runSuite, suiteReport, formatReport } from "@yoke/testkit/security";
 * const run = await runSuite({ suite: agentDojoSuite("banking"), harness: ({ model, tools }) => createHarness({ provider: model, tools, policy }) });
 * console.log(formatReport([suiteReport(run, "suite-wide policy")]));
 * ```
 */
export { SUITE_NAMES, agentDojoSuite } from "./security/data.js";
export { loadSuite, readJsonFile } from "./security/suite-loader.js";
export { ToolDeclarationsSchema, checkDeclarations, loadToolDeclarations, parseToolDeclarations, policyFactsOf } from "./security/declarations.js";
export type { FactsTemplate, ToolDeclaration, ToolDeclarations } from "./security/declarations.js";
export { ARGUMENT_ROLE, defaultDeclarationsFor, defaultPolicyFor } from "./security/default-policy.js";
export { BUILT_IN_HANDLER_SUITES, builtInHandlers, builtInPrepare, checkHandlers } from "./security/handlers.js";
export type { EnvironmentPreparer, SuiteSimulation, ToolHandlers } from "./security/handlers.js";
export type {
  GroundTruthCall,
  InjectionTask,
  InjectionVector,
  JsonObject,
  PlantedRecord,
  Predicate,
  SuiteData,
  SuiteName,
  ToolDescription,
  ToolParameter,
  UserTask,
} from "./security/types.js";
export {
  ATTACK_MODEL_NAME,
  ATTACK_USER,
  buildEnvironment,
  fillTemplate,
  importantInstructions,
  injectionValues,
  resolveArgs,
} from "./security/environment.js";
export type { InjectionValues } from "./security/environment.js";
export { evaluatePredicate, jsonEquals, parsePath } from "./security/predicates.js";
export type { PredicateContext, TraceCall } from "./security/predicates.js";
export { coerceArguments, parametersSchema } from "./security/coerce.js";
export type { Coerced } from "./security/coerce.js";
export { pythonFloat, renderOutput } from "./security/render.js";
export { SimulatedToolError, agentDojoTools } from "./security/tools.js";
export type { SecurityEnvironment, SuiteToolsOptions, ToolImplementation } from "./security/tools.js";
export { createAgentDojoModel, isOutputAttack } from "./security/model.js";
export type { AgentDojoModel, AgentDojoModelOptions, IssuedCall } from "./security/model.js";
export { denyAllApprover, isAskedForByUser, userApprover } from "./security/approver.js";
export { honestApprover, honestObjection, rubberStampApprover } from "./security/honest-approver.js";
export type { ApprovalAnswer, ApprovalAsked, Approver, ParkedCall } from "./security/approver.js";
export { GROUND_TRUTH_PLANNER_NOTE, groundTruthPlanner } from "./security/delegation-planner.js";
export type { PlannedTool } from "./security/delegation-planner.js";
export { runPair, runSuite } from "./security/runner.js";
export type { BlockedCall, HarnessFactory, PairResult, PairSetup, SecurityHarness, SuiteRun } from "./security/runner.js";
export { formatReport, perAttackedPair, perBenignTask, suiteReport, totalOf } from "./security/report.js";
export { ModeFiguresSchema, SECURITY_MODES, SecurityReportJsonSchema, securityReportJson } from "./security/report-json.js";
export type { ModeFigures, SecurityMode, SecurityReportJson, SuiteResults } from "./security/report-json.js";
export type { Ratio, SuiteReport } from "./security/report.js";
export { scopedPolicy } from "./security/scoped-policy.js";
export type { PolicyDocumentJson, PolicyRuleJson } from "./security/scoped-policy.js";
