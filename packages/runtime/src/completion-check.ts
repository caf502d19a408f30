import type { ModelResponse, RunState } from "@yoke/protocol";

/** What a completion check is shown: the state after the final response, and that response. */
export interface CompletionContext {
  readonly state: RunState;
  readonly response: ModelResponse;
}

/**
 * A completion check's verdict. A failure with `retry` not false (and turns left) sends
 * `reason` back to the model as new input; otherwise the run ends `verification_failed`.
 */
export type CompletionVerdict = { passed: true; summary?: string } | { passed: false; reason: string; retry?: boolean };

/**
 * Decides whether a model's "done" is true. Never trust "done" unverified: run the tests,
 * check the file, compare the output.
 *
 * @example
 * ```ts
 * const checkCompletion: CompletionCheck = async () =>
 *   existsSync("summary.md") ? { passed: true } : { passed: false, reason: "summary.md does not exist" };
 * ```
 */
export type CompletionCheck = (context: CompletionContext) => Promise<CompletionVerdict>;
