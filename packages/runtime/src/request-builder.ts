import {
  contextInputFromRunState,
  createContextCompiler,
  diffManifest,
  estimatedTokenCounter,
  type CompileConfig,
  type CompileResult,
  type ContextInput,
  type EvidenceItem,
} from "@yoke/context-compiler";
import {
  YokeError,
  canonicalJson,
  type CarriedReservation,
  type JsonValue,
  type ModelRequest,
  type ProviderAdapterV1,
  type RunState,
  type YokeEventDraft,
} from "@yoke/protocol";
import { journaledDelta } from "./compiled-context.js";
import type { ContextOptions } from "./harness-types.js";
import type { RunContext } from "./run-context.js";
import type { Turn } from "./turn/turn.js";
import { turnTools, type TurnOffer, type TurnTools } from "./pinned-tools.js";
import { HOOKS } from "./turn/hooks.js";
import { compilerFor } from "./run-settings.js";
import { forkedEvidence } from "./subagents/fork-source.js";
import { withHistory } from "./sessions/session-history.js";

type JsonRecord = Record<string, JsonValue>;

/**
 * The compile config of a harness: model id and window from the provider, the rest from the
 * `context` option. Validated here, once (CONFIG_INVALID).
 */
export function compileConfigOf(provider: ProviderAdapterV1, options: ContextOptions): CompileConfig {
  const counter = options.tokenCounter;
  const config: CompileConfig = {
    model: provider.modelId,
    contextWindow: provider.capabilities.contextWindow,
    maxOutputTokens: maxOutputTokensOf(options) ?? provider.capabilities.maxOutputTokens,
    ...(counter === undefined || counter === "model" ? {} : { tokenCounter: counter === "estimated" ? estimatedTokenCounter() : counter }),
    ...(options.compaction === undefined ? {} : { compaction: options.compaction }),
    ...(options.toolOutputBudgetBytes === undefined ? {} : { toolOutputBudgetBytes: options.toolOutputBudgetBytes }),
    ...(options.toolOutputBudgets === undefined ? {} : { toolOutputBudgets: options.toolOutputBudgets }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.toolChoice === undefined ? {} : { toolChoice: options.toolChoice }),
    ...(options.stopSequences === undefined ? {} : { stopSequences: options.stopSequences }),
    ...(options.serverTools === undefined ? {} : { serverTools: options.serverTools }),
    ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
  };
  createContextCompiler(config);
  return config;
}

/** `context.maxOutputTokens`, or its former name `outputReserve`; both given must agree (CONFIG_INVALID). */
function maxOutputTokensOf(options: ContextOptions): number | undefined {
  const { maxOutputTokens, outputReserve } = options;
  if (maxOutputTokens !== undefined && outputReserve !== undefined && maxOutputTokens !== outputReserve) {
    throw new YokeError(
      "CONFIG_INVALID",
      `context.maxOutputTokens (${maxOutputTokens}) and its former name context.outputReserve (${outputReserve}) differ: give one`,
      {
        details: { option: "context.maxOutputTokens" },
      },
    );
  }
  return maxOutputTokens ?? outputReserve;
}

/**
 * The compiler's input for a run state (`contextInputFromRunState`), with the harness's
 * pinned constraints, evidence and the compactions journaled so far, after the conversation of
 * the session's earlier runs (`withHistory`). The transcript of the
 * last input is passed on, so its sources are reused and a turn costs its new messages.
 */
export function contextInputOf(context: RunContext, state: RunState, offer?: TurnOffer): ContextInput {
  const { compactions } = context.compiled;
  const { constraints } = context.deps.context;
  const evidence = evidenceOf(context, state);
  const offered = offeredTools(context, state, offer ?? state.offeredTools);
  const input = contextInputFromRunState(state, {
    previousTranscript: context.compiled.transcript,
    ...(constraints === undefined ? {} : { constraints }),
    ...(evidence === undefined ? {} : { evidence }),
    ...(compactions.length === 0 ? {} : { compactions: compactions.slice() }),
    ...(offered === undefined ? {} : { toolRevisions: offered.revisions }),
    ...(offered === undefined || offered.remote.length === 0 ? {} : { remoteTools: offered.remote }),
  });
  context.compiled.transcript = input.transcript;
  const continued = withHistory(input, context.compiled.history, state);
  return offered === undefined ? continued : { ...continued, tools: offered.tools };
}

/** A child's shared items (its fork, from `run.started`) first, then the harness's `context.evidence`. */
function evidenceOf(context: RunContext, state: RunState): readonly EvidenceItem[] | undefined {
  const own = context.deps.context.evidence?.(state);
  const forked = forkedEvidence(state);
  if (forked.length === 0) return own;
  return own === undefined || own.length === 0 ? forked : [...forked, ...own];
}

/** The turn's tools; the same objects while the offered set is the same, so the compiler renders them once. */
function offeredTools(context: RunContext, state: RunState, offer: TurnOffer | undefined): TurnTools | undefined {
  if (offer === undefined || state.toolSnapshot === undefined) return undefined;
  const cached = context.compiled.offered;
  if (cached?.digest === offer.digest) return cached;
  const tools = turnTools(state, offer);
  context.compiled.offered = tools;
  return tools;
}

/**
 * Compiles the request `state` gives with the context's long-lived compiler. Throws
 * CONTEXT_OVERFLOW when it cannot fit. A run with pinned tools offers the tools of the
 * turn (`offer` for a turn about to start, else `turn.started.offered`).
 */
export function compileRequest(context: RunContext, state: RunState, offer?: TurnOffer, settings = state.settings): CompileResult {
  return compilerFor(context, settings).compile(contextInputOf(context, state, offer));
}

/**
 * `context.compiled` and `model.requested` for the request `state` gives, journaled together
 * before the call: the manifest as a delta against the last journaled one, the artifacts not
 * journaled yet, the compactions this compile made, and the request hash. The full text of a
 * cut tool output is not an artifact here: it is journaled once, in the tool's own event (or
 * it is in the artifact store, referenced from that event), and the manifest names its hash.
 * With a budget, the call's worst case is reserved in the same transaction, on
 * `model.requested` itself (`reserved`: the compiled input tokens, the output reserve, their
 * price, a turn when it starts one); a reservation that does not fit ends the run
 * `budget_exhausted` instead of requesting.
 */
export function requestDrafts(turn: Turn, state: RunState, turnId: string, offer?: TurnOffer): YokeEventDraft[] {
  const { context } = turn;
  const result = compileRequest(context, state, offer);
  // Refused before it is journaled (a setting the model cannot take): a resume with other settings compiles it afresh.
  context.deps.provider.admit?.(result.request);
  const { manifest } = result;
  const startsTurn = state.currentTurnId !== turnId;
  const call = { turnId, inputTokens: manifest.allocation.used, outputReserve: manifest.allocation.outputReserve, startsTurn };
  let reserved: CarriedReservation | undefined;
  for (const beforeRequest of HOOKS.beforeRequest) {
    const step = beforeRequest(context, call);
    if (step === undefined) continue;
    if ("refused" in step) {
      return [
        {
          type: "run.completed",
          at: context.deps.clock.now(),
          causationId: turnId,
          data: { outcome: step.refused, turns: startsTurn ? state.turns + 1 : state.turns },
        },
      ];
    }
    reserved = step.reserved;
  }
  const journaled = context.compiled.artifacts;
  const artifacts: { hash: string; text: string }[] = [];
  const seen = new Set<string>();
  for (const artifact of result.artifacts) {
    if (artifact.origin === "tool_output" || journaled.has(artifact.hash) || seen.has(artifact.hash)) continue;
    seen.add(artifact.hash);
    artifacts.push({ hash: artifact.hash, text: artifact.text });
  }
  turn.compiled(result);
  const at = context.deps.clock.now();
  const delta = journaledDelta(diffManifest(context.compiled.manifest, manifest));
  const compactions = result.compactions.map((compaction) => JSON.parse(canonicalJson(compaction)) as JsonRecord);
  return [
    {
      type: "context.compiled",
      at,
      causationId: turnId,
      data: {
        turnId,
        revision: manifest.revision,
        requestHash: manifest.requestHash,
        manifestDelta: delta,
        ...(artifacts.length === 0 ? {} : { artifacts }),
        ...(compactions.length === 0 ? {} : { compactions }),
      },
    },
    {
      type: "model.requested",
      at,
      causationId: turnId,
      // The call's reservation rides on its request: no event of its own.
      data: {
        turnId,
        requestHash: manifest.requestHash,
        messageCount: result.request.messages.length,
        ...(reserved === undefined ? {} : { reserved }),
      },
    },
  ];
}

/**
 * The request journaled by the last `model.requested`: the one this process compiled, or,
 * after a resume, compiled afresh from the folded state and checked against the journaled
 * hash (REQUEST_MISMATCH when the harness's config or the journal changed). A request
 * journaled before the context compiler (no `context.compiled`) is compiled without a check.
 */
export function journaledRequest(context: RunContext, state: RunState): ModelRequest {
  const { requested, request } = context.compiled;
  if (requested !== undefined && request?.requestHash === requested.requestHash) return request.request;
  // Compiled under the settings it was journaled under: a resume's new settings apply from the next request.
  const result = compileRequest(context, state, undefined, requested === undefined ? state.settings : requested.settings);
  if (requested?.compiled === true && result.manifest.requestHash !== requested.requestHash) {
    throw new YokeError(
      "REQUEST_MISMATCH",
      `the request recompiled on resume hashes to ${result.manifest.requestHash}, not to the journaled ${requested.requestHash}; was the harness's provider, system prompt or context config changed?`,
      { details: { turnId: requested.turnId, expected: requested.requestHash, actual: result.manifest.requestHash, seq: state.length - 1 } },
    );
  }
  return result.request;
}
