import { extractiveSummary, makeRevision, selectCompaction, summaryCharBudget, summaryTokenAllowance } from "./compaction.js";
import type { ContextRevision } from "./compaction-types.js";
import { delimiterNonce } from "./compiler.js";
import { systemEntry, taskEntry, toolsEntry, transcriptEntry } from "./entries.js";
import { toolOutputBudget, type CompileConfig, type ContextInput } from "./input.js";
import { candidatesOf, layoutContext, tailStartOf } from "./layout.js";
import { mediaTokenRuleForModel } from "./media-tokens.js";
import { tokenCounterForModel } from "./tokenizer.js";

/**
 * Runs the configured compaction policy: when the context is above the policy's threshold,
 * summarizes the oldest transcript messages (whole tool-call/result pairs only, never the
 * newest `keepRecentMessages` nor the open pair) with the policy's summarizer (a model call)
 * or the extractive default, and returns the new context revision. Journal it and pass it
 * in `input.compactions`; the events it replaces are never rewritten. Returns undefined when
 * the context is under the threshold or nothing may be summarized.
 *
 * @example
 * ```ts
 * const revision = await compactContext(input, config);
 * if (revision) input = { ...input, compactions: [...(input.compactions ?? []), revision] };
 * ```
 */
export async function compactContext(
  input: ContextInput,
  config: CompileConfig,
  options: { readonly force?: boolean } = {},
): Promise<ContextRevision | undefined> {
  const policy = config.compaction;
  if (policy === undefined) return undefined;
  const counter = config.tokenCounter ?? tokenCounterForModel(config.model);
  const mediaRule = config.mediaTokens ?? mediaTokenRuleForModel(config.model);
  const nonce = delimiterNonce(input, config.delimiterSeed);
  const layout = layoutContext({
    input,
    compactions: input.compactions ?? [],
    fixed: [systemEntry(input.systemPrompt, nonce, input.constraints ?? [], counter), taskEntry(input.task, counter)],
    tools: toolsEntry(input.tools, new Set(input.remoteTools ?? []), nonce, counter, input.toolRevisions),
    nonce,
    counter,
    transcript: (source, index, sourceNonce) => transcriptEntry(source, index, sourceNonce, (name) => toolOutputBudget(config, name), counter, mediaRule),
  });
  const target = Math.floor((config.contextWindow - config.maxOutputTokens) * policy.threshold);
  const excess = layout.used - target;
  if (excess <= 0 && options.force !== true) return undefined;
  const maxChars = summaryCharBudget(policy, config.contextWindow - config.maxOutputTokens);
  const replaced = selectCompaction(candidatesOf(layout), tailStartOf(layout), Math.max(excess, 0) + summaryTokenAllowance(maxChars), policy);
  if (replaced === undefined) return undefined;
  const items = replaced.map(({ id, message }) => ({ id, message }));
  const summary = policy.summarize === undefined ? extractiveSummary({ items, maxChars }) : await policy.summarize({ items, maxChars });
  return makeRevision(replaced, layout.resolved, summary, policy.summarize === undefined ? "extractive" : "model");
}
