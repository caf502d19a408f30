// Survivor of `pnpm mutate runtime` in the loop: act-on-response.ts:70, an answer that does
// not match the output schema is sent back only while turns are left.
import { parseYokeEvent } from "@yoke/protocol";
import { say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { capturedLogs } from "./__fixtures__/captured-logs.js";
import { readAll, rig } from "./__fixtures__/harness-fixtures.js";

describe("the loop's bounds", () => {
  it("an answer that does not match the output schema on the last turn ends the run verification_failed: no turn past maxTurns", async () => {
    const { logger, said } = capturedLogs();
    const { harness, model, journal } = rig([say("{}"), say("{}")], { output: z.object({ city: z.string() }), outputRetries: 5, maxTurns: 2, logger });
    const result = await harness.start("t");
    model.assertConsumed();
    expect(result.outcome?.status).toBe("verification_failed");
    const events = (await readAll(journal, result.runId)).map(parseYokeEvent);
    // act-on-response.ts's log line: each rejected answer, its turn and the retries used before it.
    const turns = events.flatMap((event) => (event.type === "turn.started" ? [event.data.turnId] : []));
    expect(said("final answer does not match the output schema")).toEqual([
      { turnId: turns[0], retriesUsed: 0 },
      { turnId: turns[1], retriesUsed: 1 },
    ]);
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === "turn.started")).toHaveLength(2);
    expect(types.filter((type) => type === "input.added")).toHaveLength(1);
  });
});
