/**
 * @yoke/testkit — what downstream CI imports to test against Yoke's contracts: a scripted
 * model that throws typed errors on an unexpected or unconsumed call, fault steps
 * (malformed, unknown and duplicate tool calls, refusals, truncation), and event drafts.
 *
 * The contract suites (vitest) are in `@yoke/testkit/contracts`, the fast-check arbitraries
 * in `@yoke/testkit/arbitraries`, so importing the scripted model loads neither.
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
  unknownTool,
} from "./scripted-model-steps.js";
export type {
  ScriptedError,
  ScriptedResponse,
  ScriptedStep,
  ScriptedStepFunction,
  ScriptedToolCallPart,
  ToolCallSpec,
} from "./scripted-model-steps.js";
export { eventDraft, runStartedDraft } from "./event-drafts.js";
export type { RunStartedDraft, RunStartedDraftOverrides } from "./event-drafts.js";
