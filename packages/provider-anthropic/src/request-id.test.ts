import { afterEach, describe, expect, it } from "vitest";
import { ask, collect, fixture, rejection, replay, weatherTool, type Replay } from "./__fixtures__/test-support.js";

let current: Replay | undefined;
async function open(...args: Parameters<typeof replay>): Promise<Replay> {
  await current?.server.close();
  current = await replay(...args);
  return current;
}
afterEach(async () => {
  await current?.server.close();
  current = undefined;
});

const withId = (requestId: string) => ({ headers: { "request-id": requestId } });

describe("the request-id of every Anthropic response and error", () => {
  it("is on a successful response, streamed or not, and on the finish part", async () => {
    const { provider } = await open([fixture("text.sse", withId("req_011COkStream"))]);
    const { parts, onStreamPart } = collect();
    expect((await provider.generate(ask("hi"), { onStreamPart })).requestId).toBe("req_011COkStream");
    expect(parts.at(-1)).toMatchObject({ type: "finish", response: { requestId: "req_011COkStream" } });

    const whole = await open([fixture("json-parallel-tool-calls.json", withId("req_011COkJson"))], { stream: false });
    expect((await whole.provider.generate(ask("Weather?", { tools: [weatherTool] }))).requestId).toBe("req_011COkJson");
  });

  it("is on errors raised after the 200: a destroyed socket (TypeError: terminated), a stream that ends without message_stop", async () => {
    for (const cut of [true, false]) {
      const { provider } = await open([fixture("stream-cut.sse", { cut, ...withId(`req_011CCut${cut}`) })]);
      const error = await rejection(provider.generate(ask("hi")));
      expect([error.code, error.details.requestId], `socket destroyed: ${cut}`).toEqual(["PROVIDER_STREAM_CUT", `req_011CCut${cut}`]);
    }
  });

  it("is on a CANCELLED error when the caller aborts a stream that was answered", async () => {
    const { provider } = await open([fixture("stream-cut.sse", { hang: true, ...withId("req_cancelled") })]);
    const controller = new AbortController();
    const error = await rejection(provider.generate(ask("hi"), { signal: controller.signal, onStreamPart: () => controller.abort() }));
    expect([error.code, error.details.requestId]).toEqual(["CANCELLED", "req_cancelled"]);
  });

  it("is on an error event inside the stream", async () => {
    const { provider } = await open([fixture("overloaded-event.sse", withId("req_011CEvent"))]);
    expect((await rejection(provider.generate(ask("hi")))).details).toMatchObject({ type: "overloaded_error", requestId: "req_011CEvent" });
  });
});
