import type { Message, ProviderMetadata, ReasoningEffort, ResponseFormat, RunState, ServerToolSpec, ToolSpec } from "@yoke/protocol";
import type { CompactionPolicy, ContextRevision } from "./compaction-types.js";
import type { MediaTokenRule } from "./media-tokens.js";
import type { TokenCounter } from "./tokenizer.js";
import type { TrustLabel } from "./trust.js";

/** A transcript message with the id of the event it came from (`event:<seq>` by convention). */
export interface SourceMessage {
  readonly id: string;
  readonly message: Message;
  /** Defaults: user → "user", assistant → "model", tool → "tool_output". */
  readonly trust?: TrustLabel;
}

/** An operator constraint that must reach the model: never dropped, never summarized. */
export interface PinnedConstraint {
  readonly id: string;
  readonly text: string;
}

/** Optional context (a memory, a retrieved document), filled by priority into free tokens. */
export interface EvidenceItem {
  readonly id: string;
  readonly kind: "memory" | "evidence";
  readonly text: string;
  /** Higher first; ties by id. */
  readonly priority: number;
  /** Default "retrieved". */
  readonly trust?: TrustLabel;
}

/**
 * Everything a compile reads. The same input (up to the order of tools, constraints and
 * evidence, which are sets) and config give the same bytes.
 *
 * @example
 * ```ts
 * const input: ContextInput = {
 *   revision: 12,
 *   task: "fix the failing test",
 *   tools: [{ name: "read_file", description: "reads a file", inputSchema: { type: "object" } }],
 *   transcript: [{ id: "event:3", message: { role: "assistant", content: [{ type: "text", text: "on it" }] } }],
 * };
 * ```
 */
export interface ContextInput {
  /** The run-state revision (events folded) this input was taken at. */
  readonly revision: number;
  readonly systemPrompt?: string;
  readonly task: string;
  readonly tools: readonly ToolSpec[];
  /** Names of tools whose descriptions come from a remote server (MCP): rendered as untrusted. */
  readonly remoteTools?: readonly string[];
  /**
   * The registry revision digest of each offered tool, by name (a run's pinned tools): recorded
   * in the manifest's tool entries (`revision`). Changes no byte of the request.
   */
  readonly toolRevisions?: Readonly<Record<string, string>>;
  /** The transcript after the task, oldest first. */
  readonly transcript: readonly SourceMessage[];
  readonly constraints?: readonly PinnedConstraint[];
  readonly evidence?: readonly EvidenceItem[];
  /** The compaction revisions in effect, oldest first (from the journal). */
  readonly compactions?: readonly ContextRevision[];
}

/**
 * How to compile. Everything here that changes rendering is digested into the manifest.
 *
 * @example
 * ```ts
 * const config: CompileConfig = { model: "gpt-4o", contextWindow: 128_000, maxOutputTokens: 4_096 };
 * ```
 */
export interface CompileConfig {
  readonly model: string;
  readonly contextWindow: number;
  /** Output headroom, reserved before anything else; sent as maxOutputTokens. */
  readonly maxOutputTokens: number;
  /** Default budget of one tool result's text, in UTF-8 bytes (default 16 KiB). */
  readonly toolOutputBudgetBytes?: number;
  /** Per-tool overrides of the output budget. */
  readonly toolOutputBudgets?: Readonly<Record<string, number>>;
  /** Overrides the counter chosen for `model` (`tokenCounterForModel`). */
  readonly tokenCounter?: TokenCounter;
  /**
   * Seed of the delimiter nonce (default: the run's task and system prompt). Fixed for a
   * context, so history renders identically on every turn.
   */
  readonly delimiterSeed?: string;
  readonly toolChoice?: "auto" | "none" | "required";
  readonly temperature?: number;
  /** Sent as `ModelRequest.reasoningEffort`. */
  readonly reasoningEffort?: ReasoningEffort;
  /** Sent as `ModelRequest.stopSequences`. */
  readonly stopSequences?: readonly string[];
  /** Tools the provider runs itself, sent as `ModelRequest.serverTools` (their definitions are not counted against the window). */
  readonly serverTools?: readonly ServerToolSpec[];
  readonly providerOptions?: ProviderMetadata;
  /** Structured output, sent as `ModelRequest.responseFormat`. */
  readonly responseFormat?: ResponseFormat;
  /** Without one, a transcript that does not fit is a CONTEXT_OVERFLOW error. */
  readonly compaction?: CompactionPolicy;
  /**
   * How images and files in user input are counted (see `mediaPartTokens`). Default: by the
   * model id, `openai` for OpenAI models, `anthropic` for Claude, else `conservative`.
   */
  readonly mediaTokens?: MediaTokenRule;
}

export const DEFAULT_TOOL_OUTPUT_BUDGET_BYTES = 16 * 1024;

/** Tokens charged per message for the provider's framing (role, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** What `contextInputFromRunState` adds to a run state's own fields. */
export interface RunStateInputOptions extends Pick<ContextInput, "constraints" | "evidence" | "compactions" | "remoteTools" | "toolRevisions"> {
  /**
   * The transcript of the input taken from an earlier state of the same run. Its sources are
   * reused (the same objects, so the compiler sees at once that the transcript only grew)
   * while the state's messages still start with theirs.
   */
  readonly previousTranscript?: readonly SourceMessage[];
}

/**
 * A compile input from a folded run state. Transcript ids are `message:<index>` in
 * `state.messages` (index 0 is the task): positions, which a crash recovery does not move,
 * so a resumed run renders the same bytes as an uninterrupted one. The runtime compiles
 * every request and rebuilds every journaled one from this.
 *
 * @example
 * ```ts
 * let input = contextInputFromRunState(accumulator.peek());
 * // next turn: cost proportional to the new messages
 * input = contextInputFromRunState(accumulator.peek(), { previousTranscript: input.transcript });
 * ```
 */
export function contextInputFromRunState(
  state: Pick<RunState, "length" | "task" | "systemPrompt" | "tools" | "messages">,
  options: RunStateInputOptions = {},
): ContextInput {
  const { previousTranscript, constraints, evidence, compactions, remoteTools, toolRevisions } = options;
  return {
    revision: state.length,
    ...(state.systemPrompt === undefined ? {} : { systemPrompt: state.systemPrompt }),
    task: state.task,
    tools: state.tools,
    ...(remoteTools === undefined ? {} : { remoteTools }),
    ...(toolRevisions === undefined ? {} : { toolRevisions }),
    transcript: transcriptOf(state.messages, previousTranscript),
    ...(constraints === undefined ? {} : { constraints }),
    ...(evidence === undefined ? {} : { evidence }),
    ...(compactions === undefined ? {} : { compactions }),
  };
}

/** One source per message after the task, reusing `previous` where it still matches. */
function transcriptOf(messages: RunState["messages"], previous: readonly SourceMessage[] = []): SourceMessage[] {
  let kept = Math.min(previous.length, messages.length - 1);
  for (let index = 0; index < kept; index++) {
    const source = previous[index]!;
    if (source.message !== messages[index + 1] || source.id !== messageId(index + 1) || source.trust !== undefined) {
      kept = index;
      break;
    }
  }
  const transcript = previous.slice(0, kept);
  for (let index = kept + 1; index < messages.length; index++) {
    transcript.push({ id: messageId(index), message: messages[index]! });
  }
  return transcript;
}

/** `message:<index>`, made once per index: every compile checks every kept message's id, and building the string each time made a turn's garbage grow with the transcript. */
const MESSAGE_IDS: string[] = [];
function messageId(index: number): string {
  let id = MESSAGE_IDS[index];
  if (id === undefined) {
    id = `message:${index}`;
    MESSAGE_IDS[index] = id;
  }
  return id;
}

/** A tool's output budget in UTF-8 bytes under `config`. */
export function toolOutputBudget(config: Pick<CompileConfig, "toolOutputBudgetBytes" | "toolOutputBudgets">, toolName: string): number {
  return config.toolOutputBudgets?.[toolName] ?? config.toolOutputBudgetBytes ?? DEFAULT_TOOL_OUTPUT_BUDGET_BYTES;
}
