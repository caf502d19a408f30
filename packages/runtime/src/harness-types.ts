// The harness's public types, one module per concept; this module gathers them so that code
// written against it keeps one import.
export type { CompletionCheck, CompletionContext, CompletionVerdict } from "./completion-check.js";
export type { HarnessBudgetOptions } from "./harness-options/budget.js";
export type { ContextOptions } from "./harness-options/context.js";
export type { HarnessEnvironmentOptions } from "./harness-options/environment.js";
export type { HarnessOptions } from "./harness-options/harness-options.js";
export type { HarnessLoopOptions, InterruptOptions } from "./harness-options/loop.js";
export type { HarnessModelOptions } from "./harness-options/model.js";
export type { HarnessObservabilityOptions } from "./harness-options/observability.js";
export type { HarnessPolicyOptions, PrincipalOption } from "./harness-options/policy.js";
export type { HarnessStoreOptions } from "./harness-options/store.js";
export type { HarnessToolOptions } from "./harness-options/tools.js";
export type { Harness } from "./harness-interface.js";
export type { ApproveOptions, DenyOptions, ResumeOptions, StartOptions, StartOrResumeOptions } from "./run-options.js";
export type { OutputOf, RunResult, RunWaiting, WaitingRunResult } from "./run-result.js";
