// What a compiler fixes once, from its config: the validated config, the token counter, the
// compaction policy, the tokens left for the context, and the digest of what changes rendering.
import { YokeError, canonicalJson } from "@yoke/protocol";
import { sha256Hex } from "./artifacts.js";
import type { CompactionPolicy } from "./compaction-types.js";
import { DEFAULT_TOOL_OUTPUT_BUDGET_BYTES, type CompileConfig } from "./input.js";
import type { Manifest } from "./manifest-schema.js";
import { mediaTokenRuleForModel, type MediaTokenRule } from "./media-tokens.js";
import { tokenCounterForModel, type TokenCounter } from "./tokenizer.js";

function validate(config: CompileConfig): void {
  const positive = (value: number | undefined, name: string) => {
    if (value !== undefined && !(Number.isInteger(value) && value > 0))
      throw new YokeError("CONFIG_INVALID", `${name} must be a positive integer`, { details: { [name]: value } });
  };
  positive(config.contextWindow, "contextWindow");
  positive(config.maxOutputTokens, "maxOutputTokens");
  positive(config.toolOutputBudgetBytes, "toolOutputBudgetBytes");
  if (config.maxOutputTokens >= config.contextWindow) throw new YokeError("CONFIG_INVALID", "maxOutputTokens must be smaller than contextWindow");
  const threshold = config.compaction?.threshold;
  if (threshold !== undefined && !(threshold > 0 && threshold <= 1)) throw new YokeError("CONFIG_INVALID", "compaction.threshold must be in (0, 1]");
}

/** What a compiler fixes once, from its config. */
export interface CompilerSetup {
  readonly config: CompileConfig;
  readonly counter: TokenCounter;
  /** How user images and files are counted. */
  readonly mediaRule: MediaTokenRule;
  readonly policy: CompactionPolicy | undefined;
  /** Tokens for the context: the window less the output reserve. */
  readonly available: number;
  readonly configDigest: string;
  readonly tokenizer: Manifest["tokenizer"];
}

export function setupOf(config: CompileConfig): CompilerSetup {
  validate(config);
  const counter: TokenCounter = config.tokenCounter ?? tokenCounterForModel(config.model);
  const tokenizer: Manifest["tokenizer"] = { encoding: counter.encoding, mode: counter.mode };
  if (counter.charsPerToken !== undefined) tokenizer.charsPerToken = counter.charsPerToken;
  return {
    config,
    counter,
    mediaRule: config.mediaTokens ?? mediaTokenRuleForModel(config.model),
    policy: config.compaction,
    available: config.contextWindow - config.maxOutputTokens,
    configDigest: configDigestOf(config, counter),
    tokenizer,
  };
}

/** The digest of everything in the config that changes rendering. */
function configDigestOf(config: CompileConfig, counter: TokenCounter): string {
  const policy = config.compaction;
  return sha256Hex(
    canonicalJson({
      model: config.model,
      contextWindow: config.contextWindow,
      maxOutputTokens: config.maxOutputTokens,
      toolOutputBudgetBytes: config.toolOutputBudgetBytes ?? DEFAULT_TOOL_OUTPUT_BUDGET_BYTES,
      toolOutputBudgets: config.toolOutputBudgets ?? {},
      tokenizer: [counter.encoding, counter.mode, counter.charsPerToken ?? null],
      delimiterSeed: config.delimiterSeed ?? null,
      toolChoice: config.toolChoice ?? null,
      temperature: config.temperature ?? null,
      providerOptions: config.providerOptions ?? null,
      // Only when set, so the digest of every config without one is unchanged.
      ...(config.reasoningEffort === undefined ? {} : { reasoningEffort: config.reasoningEffort }),
      compaction:
        policy === undefined
          ? null
          : [policy.threshold, policy.keepRecentMessages ?? null, policy.maxSummaryChars ?? null, policy.summarize === undefined ? "extractive" : "model"],
      // Only when set, so a config without it keeps the digest it always had.
      ...(config.mediaTokens === undefined ? {} : { mediaTokens: config.mediaTokens }),
    }),
  );
}
