// Type tests of @yoke/runtime's public entry, checked by the package's `tsc`.
import type { JournalV1, ProviderAdapterV1, RunState } from "@yoke/protocol";
import { expectTypeOf } from "vitest";
import { createHarness, type Harness, type HarnessOptions, type RunResult, type WaitingRunResult } from "./index.js";

declare const provider: ProviderAdapterV1;

// The journal option takes a JournalV1 or the path of a SQLite file.
expectTypeOf<HarnessOptions["journal"]>().toEqualTypeOf<JournalV1 | string | undefined>();
const harness = createHarness({ journal: "./yoke.db", provider });
// Without an `output` schema, a run has no structured output; `Harness` alone (Output = unknown) accepts any harness.
expectTypeOf(harness).toEqualTypeOf<Harness<undefined>>();
expectTypeOf(harness).toMatchTypeOf<Harness>();
expectTypeOf(harness.close()).toEqualTypeOf<Promise<void>>();
// @ts-expect-error a provider is required
createHarness({ journal: "./yoke.db" });

// Any harness may return a waiting run: without a policy, a refusal, a content filter or an escalation waits for a person.
expectTypeOf(harness.start("task")).toEqualTypeOf<Promise<RunResult<undefined> | WaitingRunResult>>();
expectTypeOf(harness.resume("run_1")).toEqualTypeOf<Promise<RunResult<undefined> | WaitingRunResult>>();
expectTypeOf<RunResult["text"]>().toEqualTypeOf<string>();
expectTypeOf<RunResult["state"]>().toEqualTypeOf<RunState>();
expectTypeOf(harness.getState("run_1")).toEqualTypeOf<Promise<RunState>>();

// With a policy too (it also parks calls for approval); narrowing on `waiting` gives the outcome back.
declare const policy: import("@yoke/protocol").PolicyEngineV1;
const governed = createHarness({ provider, policy, principal: { id: "user_42", scopes: ["payments"] }, approvalTtlMs: 60_000 });
expectTypeOf(governed).toEqualTypeOf<Harness<undefined>>();
expectTypeOf(governed.start("task")).toEqualTypeOf<Promise<RunResult<undefined> | WaitingRunResult>>();
const result = await governed.start("task", { principal: { id: "user_7" } });
if (result.waiting !== undefined) {
  expectTypeOf(result.outcome).toEqualTypeOf<undefined>();
  expectTypeOf(result.waiting.approvals).toEqualTypeOf<readonly import("@yoke/protocol").ApprovalRecord[] | readonly []>();
  if (result.waiting.kind === "human") expectTypeOf(result.waiting.reason).toEqualTypeOf<"refusal" | "content_filter" | "escalation">();
} else {
  expectTypeOf(result.outcome.status).toBeString();
}
expectTypeOf(governed.approve("run_1", "approval_1", { approver: "ops" })).toEqualTypeOf<Promise<import("@yoke/protocol").ApprovalRecord>>();
// @ts-expect-error a denial needs a reason
governed.deny("run_1", "approval_1", { approver: "ops" });
