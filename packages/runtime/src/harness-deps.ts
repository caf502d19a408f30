import { YokeError, assertToolShape, systemClock, ulidIdSource, type SchemaLike } from "@yoke/protocol";
import { createLazySqliteJournal, createMemoryJournal } from "@yoke/journal";
import { realTimers } from "@yoke/scheduler";
import { createToolRegistry } from "@yoke/tool-registry";
import type { AnyTool } from "./define-tool.js";
import type { HarnessOptions, PrincipalOption } from "./harness-types.js";
import { bindLogger, silentLogger } from "./logger.js";
import { realSleep } from "./model-call.js";
import { compileConfigOf } from "./request-builder.js";
import type { HarnessDeps, ResolvedPrincipal } from "./run-context.js";
import { createToolExecutor } from "./tool-executor.js";
import { resolveCapabilities } from "./capabilities.js";
import { createDraftRedactor, createRedactor, redactingLogger } from "./redaction.js";
import { RUNTIME_VERSION } from "./version.js";
import { resolveLeasePolicy } from "./run-lease.js";
import { resolveOutput } from "./structured-output.js";
import { resolveLoopControl } from "./resolve-loop-control.js";
import { resolveBudget } from "./budget/budget-options.js";
import { DEFAULT_INTERRUPT_POLL_MS } from "./loop-control.js";
import { resolveReleases } from "./release/release-options.js";

export const DEFAULT_MAX_TURNS = 20;
/** The tenant of a harness built without `tenantId` (single-tenant use). */
export const DEFAULT_TENANT_ID = "default";
export const DEFAULT_MODEL_RETRIES = 2;
export const DEFAULT_MODEL_CALL_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_TOOL_CALLS_PER_TURN = 64;
/** Responses in a row with a call cut by the output limit that are answered with a note (see `HarnessOptions.truncatedCallRetries`). */
export const DEFAULT_TRUNCATED_CALL_RETRIES = 2;
export const DEFAULT_MAX_CONCURRENT_TOOLS = 8;
/** 256 KiB of one tool result inline in one event (see `HarnessOptions.maxEventOutputBytes`). */
export const DEFAULT_MAX_EVENT_OUTPUT_BYTES = 262_144;
/** 1 MiB of one tool call's arguments (see `HarnessOptions.maxToolInputBytes`). */
export const DEFAULT_MAX_TOOL_INPUT_BYTES = 1_048_576;
/** Answers that do not match the `output` schema sent back to the model (see `HarnessOptions.outputRetries`). */
export const DEFAULT_OUTPUT_RETRIES = 2;
/** One hour: how long an approval request, and a granted approval, holds (see `HarnessOptions.approvalTtlMs`). */
export const DEFAULT_APPROVAL_TTL_MS = 3_600_000;

/** Validates a harness's options and fills in the defaults. Throws CONFIG_INVALID. */
export function resolveOptions(options: HarnessOptions<SchemaLike | undefined>): HarnessDeps {
  const tenantId = options.tenantId ?? DEFAULT_TENANT_ID;
  if (typeof tenantId !== "string" || tenantId === "") invalid("tenantId must be a non-empty string", "tenantId");
  if (options.journal === "") invalid("journal must be a JournalV1 or the path of a SQLite file", "journal");
  // A path's journal is created only by a call that starts something new (see openJournalPath in harness.ts).
  const journal =
    typeof options.journal === "string" ? createLazySqliteJournal({ filename: options.journal, create: false }) : (options.journal ?? createMemoryJournal());
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) invalid("maxTurns must be a positive integer", "maxTurns");
  const modelRetries = options.modelRetries ?? DEFAULT_MODEL_RETRIES;
  if (!Number.isInteger(modelRetries) || modelRetries < 0) invalid("modelRetries must be a non-negative integer", "modelRetries");
  const modelCallTimeoutMs = options.modelCallTimeoutMs ?? DEFAULT_MODEL_CALL_TIMEOUT_MS;
  if (!Number.isInteger(modelCallTimeoutMs) || modelCallTimeoutMs < 1) invalid("modelCallTimeoutMs must be a positive integer", "modelCallTimeoutMs");
  const truncatedCallRetries = options.truncatedCallRetries ?? DEFAULT_TRUNCATED_CALL_RETRIES;
  if (!Number.isInteger(truncatedCallRetries) || truncatedCallRetries < 0)
    invalid("truncatedCallRetries must be a non-negative integer", "truncatedCallRetries");
  const maxToolCallsPerTurn = options.maxToolCallsPerTurn ?? DEFAULT_MAX_TOOL_CALLS_PER_TURN;
  if (!Number.isInteger(maxToolCallsPerTurn) || maxToolCallsPerTurn < 1) invalid("maxToolCallsPerTurn must be a positive integer", "maxToolCallsPerTurn");
  const maxConcurrentTools = options.maxConcurrentTools ?? DEFAULT_MAX_CONCURRENT_TOOLS;
  if (!Number.isInteger(maxConcurrentTools) || maxConcurrentTools < 1) invalid("maxConcurrentTools must be a positive integer", "maxConcurrentTools");
  const maxEventOutputBytes = options.maxEventOutputBytes ?? DEFAULT_MAX_EVENT_OUTPUT_BYTES;
  if (!Number.isInteger(maxEventOutputBytes) || maxEventOutputBytes < 1) invalid("maxEventOutputBytes must be a positive integer", "maxEventOutputBytes");
  const maxToolInputBytes = options.maxToolInputBytes ?? DEFAULT_MAX_TOOL_INPUT_BYTES;
  if (!Number.isInteger(maxToolInputBytes) || maxToolInputBytes < 1) invalid("maxToolInputBytes must be a positive integer", "maxToolInputBytes");
  const outputRetries = options.outputRetries ?? DEFAULT_OUTPUT_RETRIES;
  if (!Number.isInteger(outputRetries) || outputRetries < 0) invalid("outputRetries must be a non-negative integer", "outputRetries");
  const interruptPollMs = options.interrupts?.pollMs ?? DEFAULT_INTERRUPT_POLL_MS;
  if (!Number.isInteger(interruptPollMs) || interruptPollMs < 1) invalid("interrupts.pollMs must be a positive integer", "interrupts");
  const output = resolveOutput(options.output);
  if (options.artifacts !== undefined && options.artifacts?.specificationVersion !== "v2") {
    invalid("artifacts must implement ArtifactStoreV2 (every call names the tenant; a V1 store is not partitioned by tenant)", "artifacts");
  }
  if (journal?.specificationVersion !== "v1") invalid("journal must implement JournalV1", "journal");
  if (options.provider?.specificationVersion !== "v1") invalid("provider must implement ProviderAdapterV1", "provider");

  const tools = new Map<string, AnyTool>();
  for (const tool of options.tools ?? []) {
    // Plain JavaScript and hand-made tool objects can lack a field: name the tool and the field.
    assertToolShape(tool, "createHarness tools");
    if (typeof tool.spec !== "object") invalid(`tool ${JSON.stringify(tool.name)} must come from defineTool (it has no spec)`, "tools");
    if (tools.has(tool.name)) invalid(`two tools are named ${JSON.stringify(tool.name)}`, "tools");
    tools.set(tool.name, tool);
  }
  if (options.registry !== undefined && options.registry?.specificationVersion !== "v1") invalid("registry must implement ToolRegistryV1", "registry");
  if (options.registry !== undefined && options.tools !== undefined) {
    invalid("give either tools or a registry, not both: register the tools in the registry (registry.register(tool))", "tools");
  }
  const discovery = options.discovery;
  if (discovery !== undefined && typeof discovery !== "function" && (typeof discovery?.principal !== "string" || discovery.principal === "")) {
    invalid("discovery must be a function or { principal, filter? } with a non-empty principal", "discovery");
  }
  const policy = options.policy;
  if (policy !== undefined && (policy?.specificationVersion !== "v1" || typeof policy.decide !== "function"))
    invalid("policy must implement PolicyEngineV1", "policy");
  if (options.planDelegation !== undefined && typeof options.planDelegation !== "function") invalid("planDelegation must be a function", "planDelegation");
  const approvalTtlMs = options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS;
  if (!Number.isInteger(approvalTtlMs) || approvalTtlMs < 1) invalid("approvalTtlMs must be a positive integer", "approvalTtlMs");
  const principal = options.principal === undefined ? undefined : resolvePrincipal(options.principal, "principal");
  const clock = options.clock ?? systemClock();
  const capabilities = resolveCapabilities(options.capabilities);
  const redactor = options.secrets === undefined || options.secrets.length === 0 ? undefined : createRedactor(options.secrets);
  const logger = options.logger ?? silentLogger();
  return {
    journal,
    provider: options.provider,
    tools,
    // `tools` is sugar for a local registry of them: every run pins its tools' revisions.
    registry: options.registry ?? createToolRegistry({ tools: [...tools.values()] }),
    discovery,
    tenantId,
    clock,
    ids: options.ids ?? ulidIdSource({ clock }),
    logger: bindLogger(redactor === undefined ? logger : redactingLogger(logger, redactor)),
    systemPrompt: options.systemPrompt === "" ? undefined : options.systemPrompt,
    maxTurns,
    checkCompletion: options.checkCompletion,
    loopControl: resolveLoopControl(options, options.checkCompletion),
    onEvent: options.onEvent,
    runtimeVersion: options.runtimeVersion ?? `@yoke/runtime@${RUNTIME_VERSION}`,
    releases: resolveReleases(options.releases),
    modelRetries,
    modelCallTimeoutMs,
    truncatedCallRetries,
    maxToolCallsPerTurn,
    maxEventOutputBytes,
    maxToolInputBytes,
    artifacts: options.artifacts,
    sleep: options.sleep ?? realSleep,
    timers: options.timers ?? realTimers,
    executor: createToolExecutor({
      clock,
      timers: options.timers,
      maxConcurrent: maxConcurrentTools,
      capabilities: capabilities === undefined ? undefined : { options: capabilities, tenantId },
    }),
    redactor,
    redactDraft: redactor === undefined ? undefined : createDraftRedactor(redactor),
    compileConfig: {
      ...compileConfigOf(options.provider, options.context ?? {}),
      ...(output === undefined ? {} : { responseFormat: output.responseFormat }),
    },
    context: options.context ?? {},
    lease: resolveLeasePolicy(journal.leases, options.lease),
    output,
    outputRetries,
    policy,
    ...(options.planDelegation === undefined ? {} : { planDelegation: options.planDelegation }),
    principal,
    approvalTtlMs,
    budget: resolveBudget(options.budget, options.provider),
    interrupts: { pollMs: interruptPollMs, live: new Map() },
  };
}

/** A principal option with its defaults (authenticated, no scopes); CONFIG_INVALID when malformed. */
export function resolvePrincipal(principal: PrincipalOption, option: string): ResolvedPrincipal {
  if (typeof principal?.id !== "string" || principal.id === "") invalid(`${option}.id must be a non-empty string`, option);
  const scopes = principal.scopes ?? [];
  if (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== "string")) invalid(`${option}.scopes must be a list of strings`, option);
  return { id: principal.id, authenticated: principal.authenticated ?? true, scopes: [...scopes] };
}

function invalid(message: string, option: string): never {
  throw new YokeError("CONFIG_INVALID", `createHarness: ${message}`, { details: { option } });
}
