import type { ModelResponse, RunState } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { inputOf } from "./__fixtures__/inputs.js";
import { fromCheck } from "./from-check.js";

// The runtime's CompletionCheck, as @yoke/runtime declares it (copied structurally: this package does not import the runtime).
type CompletionCheck = (context: {
  readonly state: RunState;
  readonly response: ModelResponse;
}) => Promise<{ passed: true; summary?: string } | { passed: false; reason: string; retry?: boolean }>;

describe("fromCheck", () => {
  it("a completion check passes as it is: it sees the state and the final response", async () => {
    const seen: string[] = [];
    const check: CompletionCheck = async ({ state, response }) => {
      seen.push(`${state.runId} ${response.stopReason}`);
      return response.content.some((part) => part.type === "text" && part.text.includes("summary.md"))
        ? { passed: true, summary: "summary written" }
        : { passed: false, reason: "summary.md is not mentioned", retry: false };
    };
    const verifier = fromCheck("summary", check);
    expect(verifier).toMatchObject({ id: "summary", kind: "check", replaySafe: false });
    expect(await verifier.verify(inputOf({ text: "wrote summary.md" }))).toEqual({
      verifierId: "summary",
      kind: "check",
      passed: true,
      details: { summary: "summary written" },
    });
    expect(await verifier.verify(inputOf({ text: "done" }))).toEqual({
      verifierId: "summary",
      kind: "check",
      passed: false,
      reason: "summary.md is not mentioned",
      retry: false,
    });
    expect(seen).toEqual(["run_1 end_turn", "run_1 end_turn"]);
  });

  it("takes a plain boolean predicate; false fails with a generic reason", async () => {
    const verifier = fromCheck("yes", () => false, { replaySafe: true, kind: "predicate" });
    expect(verifier).toMatchObject({ replaySafe: true, kind: "predicate" });
    expect(await verifier.verify(inputOf())).toMatchObject({ passed: false, reason: "the check did not pass" });
    expect((await fromCheck("yes", async () => true).verify(inputOf())).passed).toBe(true);
  });

  it("keeps escalate and details of a failure; a throw becomes VERIFIER_FAILED", async () => {
    expect(await fromCheck("c", () => ({ passed: false, escalate: true, details: { files: 2 } })).verify(inputOf())).toMatchObject({
      escalate: true,
      details: { files: 2 },
    });
    await expect(
      fromCheck("c", () => {
        throw new RangeError("oops");
      }).verify(inputOf()),
    ).rejects.toMatchObject({ code: "VERIFIER_FAILED", message: 'verifier "c" threw: oops' });
  });
});
