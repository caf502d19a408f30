import { YokeError } from "@yoke/protocol";
import type { Section } from "./manifest-schema.js";

/** What did not fit, in tokens. */
export interface ContextOverflowDetails {
  readonly reason: "context_overflow";
  /** `mandatory`: system, tools, task, constraints and the open tool pair alone do not fit; `transcript`: the history does not. */
  readonly what: "mandatory" | "transcript";
  readonly required: number;
  readonly available: number;
  readonly contextWindow: number;
  readonly outputReserve: number;
  readonly sections: Readonly<Partial<Record<Section, number>>>;
  /** True when a compaction policy is configured but needs an async summarizer run first (`compactContext`). */
  readonly compactionRequired: boolean;
  /** True when the configured extractive compaction ran and could not free enough. */
  readonly compactionFailed?: boolean;
}

/** The typed error for a context that does not fit: CONTEXT_OVERFLOW, with what did not fit. */
export function contextOverflowError(details: ContextOverflowDetails): YokeError {
  const message =
    details.what === "mandatory"
      ? `mandatory context needs ${details.required} tokens but only ${details.available} are available (window ${details.contextWindow} − output ${details.outputReserve}); no constraint is dropped`
      : `the transcript needs ${details.required} tokens but only ${details.available} are available${
          details.compactionRequired
            ? "; run compactContext first"
            : details.compactionFailed === true
              ? "; compaction could not free enough"
              : "; configure a compaction policy"
        }`;
  return new YokeError("CONTEXT_OVERFLOW", message, { details: { ...details } });
}

/**
 * True for the error `compile` throws when the context does not fit.
 *
 * @example
 * ```ts
 * try { compile(input, config); }
 * catch (error) { if (isContextOverflow(error)) await compactContext(input, config); }
 * ```
 */
export function isContextOverflow(error: unknown): error is YokeError & { details: ContextOverflowDetails } {
  return YokeError.hasCode(error, "CONTEXT_OVERFLOW");
}
