import type { VerifierV1, VerifierVerdict } from "@yoke/protocol";
import type { CompletionCheck, CompletionVerdict } from "../harness-types.js";

/** The id of the verifier `checkCompletion` is adapted into. */
export const COMPLETION_CHECK_VERIFIER_ID = "checkCompletion";

/**
 * `checkCompletion` as a verifier of kind `check`: it is given the state and the response, as
 * it always was. Replay-safe, as it always was (a resume ran it again). A passing verdict's
 * `reason` is the check's summary, which becomes the outcome's `summary`.
 *
 * @example
 * ```ts
 * const verifier = completionCheckVerifier(async ({ state }) => ({ passed: state.turns < 5 }));
 * verifier.kind; // "check"
 * ```
 */
export function completionCheckVerifier(check: CompletionCheck): VerifierV1 {
  return {
    specificationVersion: "v1",
    id: COMPLETION_CHECK_VERIFIER_ID,
    kind: "check",
    replaySafe: true,
    description: "the harness's checkCompletion",
    async verify({ state, answer }): Promise<VerifierVerdict> {
      const verdict = normalizeVerdict(await check({ state, response: answer.response }));
      const base = { verifierId: COMPLETION_CHECK_VERIFIER_ID, kind: "check" } as const;
      if (verdict.passed) return verdict.summary === undefined ? { ...base, passed: true } : { ...base, passed: true, reason: verdict.summary };
      return verdict.retry === false ? { ...base, passed: false, reason: verdict.reason, retry: false } : { ...base, passed: false, reason: verdict.reason };
    },
  };
}

/** Tolerates a check written in plain JavaScript that returns something loose. */
function normalizeVerdict(verdict: CompletionVerdict | undefined): CompletionVerdict {
  if (verdict?.passed === true) return typeof verdict.summary === "string" ? { passed: true, summary: verdict.summary } : { passed: true };
  const loose = verdict as { reason?: unknown; retry?: unknown } | undefined;
  const reason = typeof loose?.reason === "string" && loose.reason !== "" ? loose.reason : "the completion check did not pass";
  return loose?.retry === false ? { passed: false, reason, retry: false } : { passed: false, reason };
}
