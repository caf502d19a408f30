import { YokeError, parseYokeEvent, type ProviderAdapterV1 } from "@yoke/protocol";
import { createScriptedModel, failWith, say } from "@yoke/testkit";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { readAll, rig } from "./__fixtures__/harness-fixtures.js";

/** A scripted model whose answers carry the request id the provider's HTTP response had. */
function withRequestIds(model: ProviderAdapterV1, ids: string[]): ProviderAdapterV1 {
  return {
    ...model,
    generate: async (request, options) => ({ ...(await model.generate(request, options)), requestId: ids.shift()! }),
  };
}

describe("the provider's request id in the journal", () => {
  it("is journaled with model.responded and, for a failed attempt, with model.failed", async () => {
    const cut = new YokeError("PROVIDER_STREAM_CUT", "the response stream was cut: terminated", { details: { provider: "openai", requestId: "req_cut" } });
    const provider = withRequestIds(createScriptedModel([failWith(cut), say("done")]), ["req_ok"]);
    const lines: string[] = [];
    const logger = pino({ level: "trace" }, { write: (line: string) => void lines.push(line) });
    const { harness, journal } = rig([], { provider, modelRetries: 1, logger });
    const { outcome, runId } = await harness.start("t");
    expect(outcome?.status).toBe("completed");
    const events = (await readAll(journal, runId)).map(parseYokeEvent);
    const failed = events.flatMap((event) => (event.type === "model.failed" ? [event.data] : []));
    expect(failed).toEqual([
      { turnId: expect.any(String), attempt: 1, code: "PROVIDER_STREAM_CUT", message: cut.message, retryable: true, retrying: true, requestId: "req_cut" },
    ]);
    const responded = events.flatMap((event) => (event.type === "model.responded" ? [event.data.response.requestId] : []));
    expect(responded).toEqual(["req_ok"]);
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; requestId?: string });
    expect(logged.filter((record) => record.requestId !== undefined).map((record) => [record.msg, record.requestId])).toEqual([
      ["model call failed; retrying", "req_cut"],
      ["model responded", "req_ok"],
    ]);
  });
});
