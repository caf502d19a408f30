import { describe, expect, it } from "vitest";
import { admitted, committed, compensated, compensating, compiled, failed, okResult, reconciled, turnStarted, uncertain } from "./__fixtures__/actions.js";
import { type Draft, inputOf, runStarted } from "./__fixtures__/inputs.js";
import { parseCitations } from "./citations.js";
import { evidenceVerifier } from "./evidence-verifier.js";

const hexA = "a".repeat(64);
const hexB = "b".repeat(64);
const hexC = "c".repeat(64);
const verify = (text: string, drafts: Draft[], options: Partial<Parameters<typeof evidenceVerifier>[0]> = {}) =>
  evidenceVerifier({ id: "evidence", ...options }).verify(inputOf({ drafts: [runStarted, turnStarted, ...drafts], text }));

describe("parseCitations", () => {
  it("reads [action:<id>] and [artifact:sha256:<hex>], each once, in order; a bad digest is malformed", () => {
    expect(
      parseCitations(
        `Done [action:action_1], see [artifact:sha256:${hexA.toUpperCase()}] and [action:action_1] [artifact:sha256:abc] [note:x] [action: spaced]`,
      ),
    ).toEqual([
      { kind: "action", id: "action_1", text: "[action:action_1]" },
      { kind: "artifact", id: hexA, text: `[artifact:sha256:${hexA.toUpperCase()}]` },
      { kind: "malformed", id: "sha256:abc", text: "[artifact:sha256:abc]" },
    ]);
  });
});

describe("evidenceVerifier", () => {
  it("[call:<toolCallId>] names an action by the tool call the model made: it checks out like the action it proposed, in this run only", async () => {
    expect(parseCitations("[call:toolu_01] [action:a]")).toEqual([
      { kind: "call", id: "toolu_01", text: "[call:toolu_01]" },
      { kind: "action", id: "a", text: "[action:a]" },
    ]);
    const drafts = [
      admitted("action_1"),
      committed("action_1", { refundId: "re_9" }),
      admitted("action_2"),
      failed("action_2"),
      { ...admitted("action_3"), runId: "run_2" },
      { ...committed("action_3"), runId: "run_2" },
    ];
    const passed = await verify("Refunded [call:call_action_1].", drafts);
    expect(passed).toMatchObject({
      passed: true,
      details: { citations: [{ citation: "[call:call_action_1]", kind: "call", status: "ok", state: "committed" }] },
    });
    const failing = await verify("[call:call_action_2] [call:call_action_3] [call:call_ghost]", drafts);
    expect(failing.passed).toBe(false);
    expect((failing.details as { citations: { status: string }[] }).citations.map((entry) => entry.status)).toEqual(["uncommitted", "missing", "missing"]);
    expect(failing.reason).toContain("[call:call_action_2] did not commit (it is failed)");
  });

  it("an answer that cites nothing fails: completion claimed without evidence", async () => {
    const verdict = await verify("All done, the refund went through.", [admitted("action_1"), committed("action_1")]);
    expect(verdict).toMatchObject({ verifierId: "evidence", kind: "evidence", passed: false, retry: true });
    expect(verdict.reason).toContain("completion claimed without evidence");
  });

  it("passes when every cited action committed in this run, with its state and receipt in details", async () => {
    const verdict = await verify("Refunded [action:action_1].", [admitted("action_1"), committed("action_1", { refundId: "re_9" })]);
    expect(verdict.passed).toBe(true);
    expect(verdict.details).toEqual({
      citations: [
        { citation: "[action:action_1]", kind: "action", id: "action_1", status: "ok", state: "committed", toolName: "refund", receipt: { refundId: "re_9" } },
      ],
    });
  });

  it("an uncertain action reconciled as applied counts, with the reconciliation's receipt", async () => {
    const verdict = await verify(
      "Refunded [action:action_1].",
      [admitted("action_1"), uncertain("action_1"), reconciled("action_1", "applied", { refundId: "re_1" })],
      {
        requireReceipt: true,
      },
    );
    expect(verdict).toMatchObject({ passed: true, details: { citations: [{ status: "ok", receipt: { refundId: "re_1" } }] } });
  });

  it("names every citation that is missing, uncommitted (failed, uncertain, compensated, still executing) or of another run", async () => {
    const drafts = [
      admitted("action_ok"),
      committed("action_ok"),
      admitted("action_failed"),
      failed("action_failed"),
      admitted("action_uncertain"),
      uncertain("action_uncertain"),
      admitted("action_undone"),
      committed("action_undone"),
      compensating("action_undone"),
      compensated("action_undone"),
      admitted("action_running"),
      admitted("action_retried"),
      uncertain("action_retried"),
      reconciled("action_retried", "not_applied"),
      { ...admitted("action_elsewhere"), runId: "run_2" },
      { ...committed("action_elsewhere"), runId: "run_2" },
    ];
    const text =
      "[action:action_ok] [action:action_failed] [action:action_uncertain] [action:action_undone] [action:action_running] [action:action_retried] [action:action_elsewhere] [action:action_ghost]";
    const verdict = await verify(text, drafts);
    expect(verdict.passed).toBe(false);
    const statuses = (verdict.details as { citations: { id: string; status: string; state?: string }[] }).citations.map(({ id, status, state }) => [
      id,
      status,
      state,
    ]);
    expect(statuses).toEqual([
      ["action_ok", "ok", "committed"],
      ["action_failed", "uncommitted", "failed"],
      ["action_uncertain", "uncommitted", "uncertain"],
      ["action_undone", "uncommitted", "compensated"],
      ["action_running", "uncommitted", "executing"],
      ["action_retried", "uncommitted", "authorized"],
      ["action_elsewhere", "other_run", undefined],
      ["action_ghost", "missing", undefined],
    ]);
    for (const expected of [
      "[action:action_failed] did not commit (it is failed)",
      "[action:action_uncertain] did not commit (it is uncertain)",
      "[action:action_undone] did not commit (it is compensated)",
      "[action:action_running] did not commit (it is executing)",
      "[action:action_elsewhere] belongs to another run (run_2)",
      "[action:action_ghost] is not in the journal",
    ]) {
      expect(verdict.reason).toContain(expected);
    }
    expect(verdict.reason).not.toContain("[action:action_ok]");
  });

  it("artifacts: a context.compiled artifact or a tool result's artifact ref of this run checks out; others do not", async () => {
    const truncated = okResult("first bytes…", { originalBytes: 30_000_000, keptBytes: 100, artifact: { digest: `sha256:${hexB}`, bytes: 30_000_000 } });
    const drafts = [compiled([hexA]), admitted("action_1"), committed("action_1", undefined, truncated), { ...compiled([hexC]), runId: "run_2" }];
    const ok = await verify(`Log in [artifact:sha256:${hexA}], output in [artifact:sha256:${hexB}].`, drafts);
    expect(ok.passed).toBe(true);
    const bad = await verify(`[artifact:sha256:${hexC}] [artifact:sha256:${"d".repeat(64)}] [artifact:sha256:nothex]`, drafts);
    expect(bad.passed).toBe(false);
    expect(bad.reason).toContain(`[artifact:sha256:${hexC}] belongs to another run (run_2)`);
    expect(bad.reason).toContain(`[artifact:sha256:${"d".repeat(64)}] is not in the journal`);
    expect(bad.reason).toContain("[artifact:sha256:nothex] is malformed");
  });

  it("a truncation's artifactHash counts too, with or without the sha256: prefix", async () => {
    const viaHash = okResult("cut", { originalBytes: 10, keptBytes: 3, artifactHash: hexC });
    expect((await verify(`[artifact:sha256:${hexC}]`, [admitted("action_1"), committed("action_1", undefined, viaHash)])).passed).toBe(true);
  });

  it("minCitations: fewer valid citations than required fails, naming the count", async () => {
    const drafts = [admitted("action_1"), committed("action_1")];
    const verdict = await verify("[action:action_1]", drafts, { minCitations: 2 });
    expect(verdict).toMatchObject({ passed: false });
    expect(verdict.reason).toContain("1 citation(s) check out, at least 2 needed");
    expect(() => evidenceVerifier({ id: "e", minCitations: 0 })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("requireReceipt: a commit without a receipt fails", async () => {
    const verdict = await verify("[action:action_1]", [admitted("action_1"), committed("action_1")], { requireReceipt: true });
    expect(verdict.passed).toBe(false);
    expect(verdict.reason).toContain("[action:action_1] committed without a receipt");
  });

  it("is replay-safe and reads the answer's text", () => {
    expect(evidenceVerifier({ id: "e" })).toMatchObject({ specificationVersion: "v1", kind: "evidence", replaySafe: true });
  });
});
