// Survivor of `pnpm mutate runtime` in the loop: act-on-response.ts:70, an answer that does
// not match the output schema is sent back only while turns are left.
import { parseYokeEvent } from "@yoke/protocol";
import { say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readAll, rig } from "./__fixtures__/harness-fixtures.js";

describe("the loop's bounds", () => {
  it("an answer that does not match the output schema on the last turn ends the run verification_failed: no turn past maxTurns", async () => {
    const { harness, model, journal } = rig([say("{}"), say("{}")], { output: z.object({ city: z.string() }), outputRetries: 5, maxTurns: 2 });
    const result = await harness.start("t");
    model.assertConsumed();
    expect(result.outcome?.status).toBe("verification_failed");
    const types = (await readAll(journal, result.runId)).map(parseYokeEvent).map((event) => event.type);
    expect(types.filter((type) => type === "turn.started")).toHaveLength(2);
    expect(types.filter((type) => type === "input.added")).toHaveLength(1);
  });
});
