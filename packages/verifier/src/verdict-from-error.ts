import { isJsonValue, type JsonValue, type VerifierV1, type VerifierVerdict, YokeError } from "@yoke/protocol";

/**
 * The verdict to journal when `verify` rejected (VERIFIER_FAILED: the command could not start
 * or timed out, the check threw): not passed, `retry: false` (the model cannot fix a verifier
 * that does not run), the error's message as the reason and its code and JSON-safe details
 * under `details.error`. `escalate` is yours to set (`{ escalate: true }` asks for a person
 * instead of `verification_failed`). A non-YokeError is treated as VERIFIER_FAILED.
 *
 * @example
 * ```ts
 * let verdict: VerifierVerdict;
 * try { verdict = await verifier.verify(input); }
 * catch (error) {
 *   if (YokeError.hasCode(error, "CANCELLED")) throw error;
 *   verdict = verdictFromError(verifier, error);
 * }
 * ```
 */
export function verdictFromError(verifier: Pick<VerifierV1, "id" | "kind">, error: unknown, options: { escalate?: boolean } = {}): VerifierVerdict {
  const yoke = YokeError.isInstance(error) ? error : undefined;
  const code = yoke?.code ?? "VERIFIER_FAILED";
  const message = error instanceof Error ? error.message : String(error);
  const details: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(yoke?.details ?? {})) if (isJsonValue(value)) details[key] = value;
  return {
    verifierId: verifier.id,
    kind: verifier.kind,
    passed: false,
    reason: message,
    details: { error: { code, details } },
    retry: false,
    ...(options.escalate === undefined ? {} : { escalate: options.escalate }),
  };
}
