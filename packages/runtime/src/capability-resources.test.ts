// Issue 33, item 8, through the runtime: a tool whose policy resource climbs out of its root
// (`file:../../etc/passwd` from a model-proposed path) gets no capability. The mint refuses it
// with CAPABILITY_RESOURCE_INVALID before the handler runs, and the action's failure says so
// in the journal.
import { createCapabilityBroker } from "@yoke/policy/capabilities";
import { sequentialIdSource, steppingClock } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readAll, rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";

describe("capabilities for resources that do not canonicalize", () => {
  it("a path that climbs above its root gets no capability: the handler never runs and the journaled failure names CAPABILITY_RESOURCE_INVALID", async () => {
    const broker = createCapabilityBroker({ key: "capability-test-key-0123456789abcdef", clock: steppingClock(1_000, 0), ids: sequentialIdSource() });
    const reads: string[] = [];
    const readFile = defineTool({
      name: "read_file",
      description: "Reads a report.",
      input: z.object({ path: z.string() }),
      sideEffect: "none",
      maxAttempts: 1,
      policy: ({ path }) => ({ verb: "read", resource: `file:${path}` }),
      execute: async ({ path }) => {
        reads.push(path);
        return `contents of ${path}`;
      },
    });
    const { harness, journal } = rig(
      [
        callTools([
          { name: "read_file", args: { path: "reports/q3.pdf" } },
          { name: "read_file", args: { path: "reports/../../etc/passwd" } },
        ]),
        say("done"),
      ],
      { tools: [readFile], capabilities: { broker } },
    );
    const result = await harness.start("Read the Q3 report.", { runId: "run_paths" });
    expect(result.outcome?.status).toBe("completed");
    expect(reads).toEqual(["reports/q3.pdf"]);
    const failed = (await readAll(journal, "run_paths")).filter((event) => event.type === "action.failed");
    expect(failed).toHaveLength(1);
    const data = failed[0]!.data as { result: { error?: unknown }; retryable: boolean };
    expect(data.result.error).toEqual({
      code: "CAPABILITY_RESOURCE_INVALID",
      message: 'mint: resource "file:reports/../../etc/passwd": the resource\'s path climbs above its root',
    });
    expect(data.retryable).toBe(false);
  });
});
