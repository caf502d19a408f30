/**
 * Attribute keys and values of the spans this package emits. The `gen_ai.*` keys are the
 * OpenTelemetry GenAI semantic conventions (Development status, as of semantic-conventions
 * 1.45: `gen_ai.provider.name` replaced `gen_ai.system`); they are spelled out here rather than
 * imported, as the conventions ask of instrumentation libraries, and the tests check each one
 * against `@opentelemetry/semantic-conventions/incubating`. The `yoke.*` keys are Yoke's own.
 */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  requestMaxTokens: "gen_ai.request.max_tokens",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  usageInputTokens: "gen_ai.usage.input_tokens",
  usageOutputTokens: "gen_ai.usage.output_tokens",
  usageCacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  usageCacheCreationInputTokens: "gen_ai.usage.cache_creation.input_tokens",
  usageReasoningOutputTokens: "gen_ai.usage.reasoning.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  errorType: "error.type",
} as const;

/** `gen_ai.operation.name` values. */
export const GEN_AI_OPERATION = {
  invokeAgent: "invoke_agent",
  chat: "chat",
  executeTool: "execute_tool",
} as const;

/** Yoke's own attributes, beside the conventions'. */
export const YOKE = {
  tenantId: "yoke.tenant.id",
  runId: "yoke.run.id",
  sessionId: "yoke.session.id",
  parentRunId: "yoke.run.parent_id",
  runtime: "yoke.run.runtime",
  maxTurns: "yoke.run.max_turns",
  outcome: "yoke.run.outcome",
  turns: "yoke.run.turns",
  turnId: "yoke.turn.id",
  turnIndex: "yoke.turn.index",
  requestHash: "yoke.model.request_hash",
  modelAttempt: "yoke.model.attempt",
  stopReason: "yoke.model.stop_reason",
  providerRequestId: "yoke.model.provider_request_id",
  retryable: "yoke.retryable",
  retrying: "yoke.retrying",
  actionId: "yoke.action.id",
  actionState: "yoke.action.state",
  sideEffect: "yoke.action.side_effect",
  attemptId: "yoke.action.attempt_id",
  attempt: "yoke.action.attempt",
  receipt: "yoke.action.receipt",
  reconciliation: "yoke.action.reconciliation",
  dispatched: "yoke.action.dispatched",
  toolRevision: "yoke.tool.revision",
  policyRule: "yoke.policy.rule",
  verifierId: "yoke.verifier.id",
  verifierRunId: "yoke.verifier.run_id",
  verifierAttempt: "yoke.verifier.attempt",
  verifierPassed: "yoke.verifier.passed",
  incomplete: "yoke.incomplete",
} as const;
