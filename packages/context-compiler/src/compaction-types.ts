import { z } from "zod/v4";
import type { Message } from "@yoke/protocol";
import { TrustLabelSchema } from "./trust.js";

/**
 * A compaction: a new context revision in which a contiguous run of transcript items is
 * shown as one summary. Journaled as data; the events it replaces stay in the log.
 *
 * @example
 * ```ts
 * const revision = ContextRevisionSchema.parse(event.data.revision);
 * compile({ ...input, compactions: [...earlier, revision] }, config);
 * ```
 */
export const ContextRevisionSchema = z.object({
  /** 1 for the first compaction of a context, then +1. */
  revision: z.number().int().positive(),
  /** The context revision it was made from (0: the uncompacted context). */
  parent: z.number().int().nonnegative(),
  /** Transcript item ids replaced, in order; always whole tool-call/result pairs. */
  replaces: z.array(z.string()).min(1),
  summary: z.string(),
  /** SHA-256 of `summary`: the artifact that holds it. */
  summaryHash: z.string(),
  /** The least trusted label among the replaced items: the summary carries it. */
  trust: TrustLabelSchema,
  summarizer: z.enum(["extractive", "model"]),
});
export type ContextRevision = z.infer<typeof ContextRevisionSchema>;

/** What a summarizer is given: the messages being replaced, with their ids, oldest first. */
export interface SummarizeRequest {
  readonly items: readonly { readonly id: string; readonly message: Message }[];
  /** The summary should not be longer than this many characters. */
  readonly maxChars: number;
}

/** A model-backed summarizer (injected; the compiler never calls a provider itself). */
export type Summarize = (request: SummarizeRequest) => Promise<string>;

/**
 * When and how a context is compacted.
 *
 * @example
 * ```ts
 * const policy: CompactionPolicy = { threshold: 0.8, keepRecentMessages: 8 };
 * const withModel: CompactionPolicy = { threshold: 0.8, summarize: async ({ items }) => callModel(items) };
 * ```
 */
export interface CompactionPolicy {
  /** Fraction (0–1] of the input budget (window − output reserve) above which to compact. */
  readonly threshold: number;
  /** Newest transcript messages never summarized (default 8); the open tool pair never is. */
  readonly keepRecentMessages?: number;
  /** Cap on a summary's length in characters (default 4,000). */
  readonly maxSummaryChars?: number;
  /** A model call; without one the extractive summarizer is used. */
  readonly summarize?: Summarize;
}
