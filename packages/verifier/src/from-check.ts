import type { JsonValue, ModelResponse, VerifierInput, VerifierV1 } from "@yoke/protocol";
import { defineVerifier } from "./define-verifier.js";

/** What a plain check is given: the verifier input, and the final response at the top (as a completion check gets it). */
export type CheckContext = VerifierInput & { readonly response: ModelResponse };

/** What a plain check returns: a boolean, or a verdict (the runtime's `CompletionVerdict` is one). */
export type CheckResult =
  | boolean
  | {
      readonly passed: boolean;
      readonly reason?: string;
      readonly summary?: string;
      readonly retry?: boolean;
      readonly escalate?: boolean;
      readonly details?: JsonValue;
    };

export interface FromCheckOptions {
  /** Default false: the check may do anything, so it is not re-run on replay. */
  readonly replaySafe?: boolean;
  /** Default "check". */
  readonly kind?: string;
  readonly description?: string;
}

/**
 * A `VerifierV1` from a plain async predicate: how a completion check
 * (`({ state, response }) => Promise<{ passed, reason?, retry? }>`) becomes a verifier.
 * `true` / `{ passed: true }` passes (`details` is kept; without it, a `summary` becomes `details: { summary }`); `false` fails
 * with "the check did not pass"; a failure's `retry` and `escalate` are kept. A throw that is
 * not a YokeError becomes VERIFIER_FAILED.
 *
 * @example
 * ```ts
 * const summaryWritten = fromCheck("summary-written", async ({ answer }) =>
 *   answer.text.includes("summary.md") ? { passed: true } : { passed: false, reason: "summary.md is not mentioned" });
 * ```
 */
export function fromCheck(id: string, check: (context: CheckContext) => CheckResult | Promise<CheckResult>, options: FromCheckOptions = {}): VerifierV1 {
  return defineVerifier({
    id,
    kind: options.kind ?? "check",
    replaySafe: options.replaySafe ?? false,
    ...(options.description === undefined ? {} : { description: options.description }),
    async verify(input) {
      const result = await check({ ...input, response: input.answer.response });
      if (typeof result === "boolean") return result ? { passed: true } : { passed: false, reason: "the check did not pass" };
      const details: JsonValue | undefined = result.details ?? (result.summary === undefined ? undefined : { summary: result.summary });
      return {
        passed: result.passed === true,
        ...(result.passed === true ? {} : { reason: result.reason ?? "the check did not pass" }),
        ...(result.retry === undefined || result.passed === true ? {} : { retry: result.retry }),
        ...(result.escalate === undefined || result.passed === true ? {} : { escalate: result.escalate }),
        ...(details === undefined ? {} : { details }),
      };
    },
  });
}
