/**
 * @yoke/testkit — what downstream CI imports to test against Yoke's contracts: a scripted
 * model that throws typed errors on an unexpected or unconsumed call, fault steps
 * (malformed, unknown and duplicate tool calls, refusals, truncation), and event drafts.
 *
 * The contract suites (vitest) are in `@yoke/testkit/contracts`, the fast-check arbitraries
 * in `@yoke/testkit/arbitraries`, so importing the scripted model loads neither; the crash
 * injector (Node child processes) is in `@yoke/testkit/crash`.
 */
export { SCRIPTED_CAPABILITIES, createScriptedModel } from "./scripted-model.js";
export type { ScriptedModel, ScriptedModelOptions } from "./scripted-model.js";
export {
  callTools,
  duplicateToolCallIds,
  failWith,
  malformedToolArguments,
  refuse,
  say,
  truncated,
  truncatedToolCall,
  unknownTool,
} from "./scripted-model-steps.js";
export type {
  ScriptedError,
  ScriptedResponse,
  ScriptedStep,
  ScriptedStepFunction,
  ScriptedPart,
  ScriptedToolCallPart,
  ScriptedTruncatedToolCallPart,
  ToolCallSpec,
} from "./scripted-model-steps.js";
export { eventDraft, runStartedDraft } from "./event-drafts.js";
export { rejectionOf, streamCollector } from "./rejection.js";
export { TINY_PDF_BASE64, TINY_PNG_BASE64, mediaParts, userRequest } from "./media-samples.js";
export type { RunStartedDraft, RunStartedDraftOverrides } from "./event-drafts.js";
export { createEffectLedger, createMemoryEffectLedger } from "./effect-ledger.js";
export type { EffectLedger, LedgerEntry } from "./effect-ledger.js";
export { createFencedBackend } from "./fenced-backend.js";
export type { FencedBackend, FencedEntry, FencedRequest } from "./fenced-backend.js";
export { SimulatedInputSchema, simulatedTool } from "./tool-simulators.js";
export type { SimulatedFault, SimulatedInput, SimulatedToolDefinition, SimulatedToolOptions } from "./tool-simulators.js";
export { REFERENCE_TOOLS, referenceScenario } from "./reference-scenario.js";
export type { ReferenceScenario, ReferenceToolName } from "./reference-scenario.js";
export { generatedScenario } from "./generated-scenario.js";
export type { GeneratedBehaviour, GeneratedScenarioOptions } from "./generated-scenario.js";
export { summarizeActions } from "./action-summary.js";
export type { ActionSummary, UncertainAction } from "./action-summary.js";
export { createStaticToolSource } from "./contracts/tool-registry-source.js";
export type { StaticToolSource, StaticToolSourceOptions } from "./contracts/tool-registry-source.js";
