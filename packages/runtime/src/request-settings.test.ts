import { canonicalJson, type ServerToolSpec } from "@yoke/protocol";
import { say, truncated } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { readAll, rig, TENANT } from "./__fixtures__/harness-fixtures.js";
import { reconstructRequest, reconstructRequestFromEvents } from "./reconstruct-request.js";

const webSearch: ServerToolSpec = { provider: "scripted", type: "web_search_v1", name: "web_search", options: { max_uses: 2 } };

describe("request settings of a harness", () => {
  it("sends temperature, tool choice, stop sequences, server tools and provider options on every request, and the journal rebuilds them", async () => {
    const settings = {
      temperature: 0.2,
      toolChoice: "auto",
      stopSequences: ["</answer>"],
      serverTools: [webSearch],
      providerOptions: { scripted: { seed: 7 } },
    } as const;
    const { harness, model, journal } = rig([truncated("Half an ans"), say("wer.")], { context: settings });
    const result = await harness.start("t");
    expect(result.outcome?.status).toBe("completed");
    expect(model.calls).toHaveLength(2);
    for (const call of model.calls) {
      expect(call).toMatchObject({
        temperature: 0.2,
        toolChoice: "auto",
        stopSequences: ["</answer>"],
        serverTools: [webSearch],
        providerOptions: { scripted: { seed: 7 } },
      });
    }
    // Both requests of the turn (the first, and the one that continued it after max_tokens) rebuild byte for byte.
    const events = await readAll(journal, result.runId);
    expect(canonicalJson(reconstructRequestFromEvents(events, 1).request)).toBe(canonicalJson(model.calls[0]));
    const continued = await reconstructRequest(journal, { tenantId: TENANT, runId: result.runId }, 1, { requestInTurn: 1 });
    expect(canonicalJson(continued.request)).toBe(canonicalJson(model.calls[1]));
    expect(() => reconstructRequestFromEvents(events, 1, 2)).toThrowError(expect.objectContaining({ code: "RUN_NOT_FOUND" }));
  });
});
