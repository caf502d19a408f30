import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIProvider, type OpenAIClientLike } from "./index.js";
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

const withId = (requestId: string) => ({ headers: { "x-request-id": requestId } });

describe("the x-request-id of every OpenAI response and error", () => {
  it("is on a successful response, streamed or not, on both APIs, and on the finish part", async () => {
    const { provider } = await open([fixture("text.sse", withId("req_ok_stream"))]);
    const { parts, onStreamPart } = collect();
    expect((await provider.generate(ask("hi"), { onStreamPart })).requestId).toBe("req_ok_stream");
    expect(parts.at(-1)).toMatchObject({ type: "finish", response: { requestId: "req_ok_stream" } });

    const whole = await open([fixture("json-parallel-tool-calls.json", withId("req_ok_json"))], { stream: false });
    expect((await whole.provider.generate(ask("Weather?", { tools: [weatherTool] }))).requestId).toBe("req_ok_json");

    const chat = await open([fixture("chat-text.sse", withId("req_ok_chat"))], { api: "chat", model: "gpt-4.1-mini" });
    expect((await chat.provider.generate(ask("hi"))).requestId).toBe("req_ok_chat");
  });

  it("is on errors raised after the 200: a destroyed socket (TypeError: terminated), a stream that ends without its terminal event", async () => {
    for (const [api, file] of [
      ["responses", "stream-cut.sse"],
      ["chat", "chat-stream-cut.sse"],
    ] as const) {
      for (const cut of [true, false]) {
        const { provider } = await open([fixture(file, { cut, ...withId(`req_cut_${api}_${cut}`) })], {
          api,
          model: api === "chat" ? "gpt-4.1-mini" : "gpt-5-mini",
        });
        const error = await rejection(provider.generate(ask("hi")));
        expect([error.code, error.details.requestId], `${api}, socket destroyed: ${cut}`).toEqual(["PROVIDER_STREAM_CUT", `req_cut_${api}_${cut}`]);
      }
    }
  });

  it("is on a CANCELLED error when the caller aborts a stream that was answered", async () => {
    const { provider } = await open([fixture("stream-cut.sse", { hang: true, ...withId("req_cancelled") })]);
    const controller = new AbortController();
    const error = await rejection(provider.generate(ask("hi"), { signal: controller.signal, onStreamPart: () => controller.abort() }));
    expect([error.code, error.details.requestId]).toEqual(["CANCELLED", "req_cancelled"]);
  });

  it("is on response.failed and on an error event", async () => {
    const { provider } = await open([fixture("response-failed.sse", withId("req_failed")), fixture("error-event.sse", withId("req_event"))]);
    expect((await rejection(provider.generate(ask("hi")))).details.requestId).toBe("req_failed");
    expect((await rejection(provider.generate(ask("hi")))).details.requestId).toBe("req_event");
  });

  it("is absent, and nothing fails, with a hand-made client that has no withResponse()", async () => {
    const { server } = await open([fixture("text.sse", withId("req_unseen"))]);
    const sdk = new OpenAI({ apiKey: "sk-test", baseURL: `${server.url}/v1` });
    // Plain promises: what a wrapper or another fetch-based client returns.
    const client: OpenAIClientLike = {
      responses: { create: (body, options) => Promise.resolve(sdk.responses.create(body, options)) },
      chat: { completions: { create: (body, options) => Promise.resolve(sdk.chat.completions.create(body, options)) } },
    };
    const response = await createOpenAIProvider({ model: "gpt-5-mini", client }).generate(ask("hi"));
    expect(response.content).toEqual([{ type: "text", text: expect.any(String) }]);
    expect("requestId" in response).toBe(false);
  });
});
