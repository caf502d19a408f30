// run-tools.ts, what a handler is told about its run: written against the survivor of
// reports/mutation/runtime.md (issue 17) at run-tools.ts :73 (`{ run }` emptied for a harness
// without run leases), applied by hand.
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TENANT, rig } from "../__fixtures__/harness-fixtures.js";
import { defineTool } from "../define-tool.js";
import type { ToolContext } from "../define-tool.js";

describe("a handler's context", () => {
  it.each([
    ["without run leases", false],
    ["with run leases", undefined],
  ] as const)("%s names the run it serves (tenant, session, run), and a fencing token only under a lease", async (_label, lease) => {
    const seen: { run: ToolContext["run"] | undefined; fencingToken: ToolContext["fencingToken"] | undefined }[] = [];
    const where = defineTool({
      name: "where",
      description: "Says which run it serves.",
      input: z.object({}),
      sideEffect: "none",
      execute: async (_input, context) => {
        seen.push({ run: context.run, fencingToken: context.fencingToken });
        return "here";
      },
    });
    const { harness } = rig([callTools([{ name: "where" }]), say("done")], { tools: [where], ...(lease === false ? { lease: false } : {}) });
    const { runId, state } = await harness.start("t");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.run).toEqual({ tenantId: TENANT, sessionId: state.sessionId, runId });
    if (lease === false) expect(seen[0]!.fencingToken).toBeUndefined();
    else expect(seen[0]!.fencingToken).toEqual(expect.any(Number));
  });
});
