import type { CompactionPolicy, EvidenceItem, PinnedConstraint, TokenCounter } from "@yoke/context-compiler";
import type { ProviderMetadata, RunState, ServerToolSpec } from "@yoke/protocol";

/**
 * How the harness compiles each request with `@yoke/context-compiler`. The model id and
 * window come from the provider (`modelId`, `capabilities.contextWindow`). Keep these the
 * same across a run's resumes: a resume recompiles the journaled request and refuses one
 * that does not hash the same (REQUEST_MISMATCH).
 *
 * @example
 * ```ts
 * const context: ContextOptions = {
 *   constraints: [{ id: "constraint:generated", text: "Never edit files under src/generated." }],
 *   compaction: { threshold: 0.8 },
 *   toolOutputBudgetBytes: 8_192,
 *   stopSequences: ["</answer>"],
 *   maxOutputTokens: 1_024,
 *   serverTools: [{ provider: "anthropic", type: "web_search_20250305", name: "web_search", options: { max_uses: 3 } }],
 * };
 * ```
 */
export interface ContextOptions {
  /** `model` (default): the model's tokenizer where one is published, else a declared estimate; `estimated`: always the estimate; or a counter. */
  tokenCounter?: "model" | "estimated" | TokenCounter;
  /**
   * The most output tokens a model call may produce, sent on every request as `maxOutputTokens`
   * (the provider cannot exceed it), kept free in the window, and what a `budget` reserves per
   * call. Default: the provider's `capabilities.maxOutputTokens`, which under a tight token
   * budget can be more than one call may hold: set this to what an answer needs.
   */
  maxOutputTokens?: number;
  /** The former name of `maxOutputTokens`; give one of the two (CONFIG_INVALID when both differ). */
  outputReserve?: number;
  /** Without one, a history that outgrows the window stops the run with CONTEXT_OVERFLOW (nothing is dropped). */
  compaction?: CompactionPolicy;
  /** Operator constraints shown on every turn; never dropped, never summarized. */
  constraints?: readonly PinnedConstraint[];
  /** Optional context filled by priority into free tokens. Must be a pure function of the state's transcript (a resume recompiles). */
  evidence?: (state: RunState) => readonly EvidenceItem[];
  /** Budget of one tool result's text the model is shown, in UTF-8 bytes (default 16 KiB); the full text stays in the tool's event (or the artifact store), journaled once. */
  toolOutputBudgetBytes?: number;
  /** Per-tool overrides of `toolOutputBudgetBytes`. */
  toolOutputBudgets?: Readonly<Record<string, number>>;
  /** Sent on every request as `ModelRequest.temperature`. */
  temperature?: number;
  /** Sent on every request as `ModelRequest.toolChoice`. */
  toolChoice?: "auto" | "none" | "required";
  /** Text that ends the model's output where it appears; the adapter refuses more than its `capabilities.maxStopSequences`. */
  stopSequences?: readonly string[];
  /**
   * Tools the provider runs itself (e.g. Anthropic web search), sent on every request; the
   * adapter refuses a type its `capabilities.serverTools` does not list. Their calls and
   * results are journaled verbatim in `model.responded` and sent back on the next request.
   */
  serverTools?: readonly ServerToolSpec[];
  /** Provider-specific settings, keyed by provider id, sent as `ModelRequest.providerOptions`. */
  providerOptions?: ProviderMetadata;
}
