// createToolExecutor, called directly: written against the survivors of reports/mutation/runtime.md
// (issue 17) at tool-executor.ts :53 and :64-65, each applied by hand.
// Equivalent mutants (no test can tell them apart from the code; kept here, not in the code):
// - tool-executor.ts, executeAll's shortcut as false: the wrapper then hands each handler its context unchanged (the scheduler reads the tool through the wrapper's prototype).
import { createCapabilityBroker } from "@yoke/policy/capabilities";
import { sequentialIdSource, steppingClock, type Capability } from "@yoke/protocol";
import type { DispatchItem } from "@yoke/scheduler";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { createToolExecutor } from "./tool-executor.js";

function setup() {
  const clock = steppingClock(1_000, 0);
  const broker = createCapabilityBroker({ key: "capability-test-key-0123456789abcdef", clock, ids: sequentialIdSource() });
  const seen: { name: string; capability: Capability | undefined; earlierRevoked?: boolean }[] = [];
  const tool = (name: string) =>
    defineTool({
      name,
      description: `The ${name} tool.`,
      input: z.object({}),
      sideEffect: "none",
      execute: async (_input, context) => {
        const earlier = seen.at(-1)?.capability;
        const earlierRevoked =
          earlier === undefined
            ? undefined
            : broker.verify(earlier.token, {
                tenantId: "acme",
                resource: earlier.scope.resource,
                verb: earlier.scope.verbs[0]!,
                actionId: earlier.scope.actionId,
              }).ok === false;
        seen.push({ name, capability: context.capability, ...(earlierRevoked === undefined ? {} : { earlierRevoked }) });
        return name;
      },
    });
  const item = (name: string, n: number): DispatchItem =>
    ({ tool: tool(name), input: {}, actionId: `action_${n}`, attemptId: `attempt_${n}`, attempt: 1, deadlineAt: 1_000_000 }) as DispatchItem;
  return { clock, broker, seen, item };
}

describe("createToolExecutor with capabilities", () => {
  // Mutants :53 (`capabilities === undefined` as true, or as `!==`): a batch with no run took the
  // fast path, and its handlers got no capability.
  it("mints a capability for each handler of a batch that names no run", async () => {
    const { clock, broker, seen, item } = setup();
    const executor = createToolExecutor({ clock, maxConcurrent: 1, capabilities: { options: { broker, ttlMs: 5_000 }, tenantId: "acme" } });
    const outcomes = await executor.executeAll([item("a", 1)], undefined);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(["committed"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.capability?.scope).toEqual({ tenantId: "acme", resource: "tool:a", verbs: ["a"], actionId: "action_1", expiresAt: 6_000 });
  });

  // Mutants :64-65 (the `finally` emptied, or its revoke removed): a handler's capability lived on
  // until the whole batch returned, not revoked as soon as the handler settled.
  it("revokes a handler's capability as soon as it settles, before the next handler of the batch runs", async () => {
    const { clock, broker, seen, item } = setup();
    const executor = createToolExecutor({ clock, maxConcurrent: 1, capabilities: { options: { broker, ttlMs: 5_000 }, tenantId: "acme" } });
    await executor.executeAll([item("a", 1), item("b", 2)], undefined, { run: { tenantId: "acme", sessionId: "session_1", runId: "run_1" } });
    expect(seen.map(({ name, earlierRevoked }) => [name, earlierRevoked])).toEqual([
      ["a", undefined],
      ["b", true],
    ]);
  });
});
