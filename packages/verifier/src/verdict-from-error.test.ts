import { VerifierVerdictSchema, YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { inputOf } from "./__fixtures__/inputs.js";
import { commandVerifier } from "./command-verifier.js";
import { verdictFromError } from "./verdict-from-error.js";

describe("verdictFromError", () => {
  it("turns a VERIFIER_FAILED rejection into a journalable verdict: not passed, retry false, the error's code and details", async () => {
    const verifier = commandVerifier({ id: "tests", command: "yoke-no-such-program-xyz", timeoutMs: 1_000 });
    const error = await verifier.verify(inputOf({ workspace: "." })).catch((caught: unknown) => caught);
    const verdict = verdictFromError(verifier, error);
    expect(VerifierVerdictSchema.parse(verdict)).toEqual(verdict);
    expect(verdict).toMatchObject({
      verifierId: "tests",
      kind: "command",
      passed: false,
      retry: false,
      details: { error: { code: "VERIFIER_FAILED", details: { reason: "spawn", errorCode: "ENOENT" } } },
    });
    expect(verdict.reason).toContain("could not start");
  });

  it("drops details that are not JSON; a plain error counts as VERIFIER_FAILED; escalate when asked", () => {
    const error = new YokeError("VERIFIER_FAILED", "boom", { details: { ok: 1, fn: () => 1, when: new Date(0) } });
    expect(verdictFromError({ id: "v", kind: "k" }, error).details).toEqual({ error: { code: "VERIFIER_FAILED", details: { ok: 1 } } });
    expect(verdictFromError({ id: "v", kind: "k" }, new Error("bare"), { escalate: true })).toMatchObject({
      reason: "bare",
      escalate: true,
      details: { error: { code: "VERIFIER_FAILED" } },
    });
  });
});
