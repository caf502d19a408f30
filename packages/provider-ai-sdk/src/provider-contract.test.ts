import { APICallError, type LanguageModelV4CallOptions, type LanguageModelV4StreamResult } from "@ai-sdk/provider";
import { providerContractTests, type ProviderContractScenario } from "@yoke/testkit/contracts";
import { createReplayServer, type ReplayExchange } from "@yoke/testkit/replay";
import { afterEach, describe, it } from "vitest";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createAiSdkProvider } from "./index.js";
import { MockLanguageModelV4, fixture, hangingStream, streamOf, textParts, toolCallParts, usage } from "./__fixtures__/test-support.js";

// The AI SDK's own mock model, scripted per scenario the way a well-behaved provider package
// behaves. It has no bytes to split: the seed only names the run.
const mockScenarios: Record<ProviderContractScenario, (options: LanguageModelV4CallOptions) => Promise<LanguageModelV4StreamResult>> = {
  text: async () => streamOf(textParts("Héllo from the mock model — 你好 👋."), { headers: { "x-request-id": "req_mock_text" } }),
  "tool-calls": async () =>
    streamOf(
      toolCallParts([
        { id: "call_mock_paris", input: '{"city":"Paris"}' },
        { id: "call_mock_tokyo", input: '{"city":"Tokyo"}' },
      ]),
    ),
  "malformed-arguments": async () => streamOf(toolCallParts([{ id: "call_mock_bad", input: '{"city": "Par' }])),
  "rate-limited": async () => {
    throw new APICallError({
      message: "Rate limit reached",
      url: "http://127.0.0.1/v1/chat/completions",
      requestBodyValues: {},
      statusCode: 429,
      responseHeaders: { "retry-after": "2", "x-request-id": "req_mock_rate" },
      isRetryable: true,
      data: { error: { type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached" } },
    });
  },
  unavailable: async () => {
    throw new APICallError({
      message: "Overloaded",
      url: "http://127.0.0.1/v1/messages",
      requestBodyValues: {},
      statusCode: 529,
      responseHeaders: {},
      isRetryable: true,
      data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    });
  },
  "stream-cut": async () => streamOf(textParts("Half an answer").slice(0, 4), { error: new TypeError("terminated") }),
  // What a provider package enqueues for an in-stream error body: an `error` part with the body.
  "in-stream-error": async () =>
    streamOf(
      [
        ...textParts("Start").slice(0, 3),
        {
          type: "error",
          error: { error: { message: "You exceeded your current quota", type: "insufficient_quota", param: null, code: "insufficient_quota" } },
        },
        { type: "finish", finishReason: { unified: "error", raw: undefined }, usage: usage(0, 0) },
      ],
      { headers: { "x-request-id": "req_mock_quota" } },
    ),
  slow: async (options) => hangingStream(options.abortSignal, textParts("Never finished").slice(0, 3)),
  // A content-filter finish after one whole call and while a second is still open.
  "refusal-with-tool-calls": async () =>
    streamOf([
      ...toolCallParts([{ id: "call_mock_paris", input: '{"city":"Paris"}' }]).slice(0, -1),
      { type: "tool-input-start", id: "call_mock_tokyo", toolName: "get_weather" },
      { type: "tool-input-delta", id: "call_mock_tokyo", delta: '{"city":"To' },
      { type: "finish", finishReason: { unified: "content-filter", raw: "content_filter" }, usage: usage(30, 12) },
    ]),
};

const mockContract = providerContractTests((scenario) => {
  let received!: () => void;
  const requestReceived = new Promise<void>((resolve) => (received = resolve));
  const model = new MockLanguageModelV4({
    provider: "mock.chat",
    modelId: "mock-model",
    doStream: async (options) => {
      received();
      return mockScenarios[scenario](options);
    },
  });
  return { adapter: createAiSdkProvider({ model }), requestReceived, requestCount: () => model.doStreamCalls.length };
});

// Literal describes and it.for, so `vitest list` (a static read of this file) finds the suites;
// `vitest list --no-static-parse` runs the file and lists every title.
describe("provider contract: ai-sdk bridge over MockLanguageModelV4", () => {
  afterEach(mockContract.cleanup);
  it.for(mockContract.tests)("$title", (test) => test.run());
});

const compatScenarios: Record<ProviderContractScenario, ReplayExchange> = {
  text: fixture("text.sse", { headers: { "x-request-id": "req_contract_compat_text" } }),
  "tool-calls": fixture("parallel-tool-calls.sse"),
  "malformed-arguments": fixture("malformed-arguments.sse"),
  "rate-limited": fixture("error-429.json"),
  unavailable: fixture("error-503.json"),
  "stream-cut": fixture("stream-cut.sse", { cut: true }),
  // A `data: {"error": …}` chunk (insufficient_quota) after the first delta, inside the 200.
  "in-stream-error": fixture("errors/insufficient-quota.chat-event.sse", { headers: { "x-request-id": "req_contract_compat_quota" } }),
  slow: fixture("stream-cut.sse", { hang: true }),
  // finish_reason content_filter after one whole tool call and during a second.
  "refusal-with-tool-calls": fixture("content-filter-tool-call.sse"),
};

// Every fixture is served split at the contract's seeded offsets (see PROVIDER_CONTRACT_SEEDS).
const compatContract = providerContractTests(async (scenario, { seed }) => {
  const server = await createReplayServer([compatScenarios[scenario]], { seed });
  const local = createOpenAICompatible({ name: "local", baseURL: `${server.url}/v1`, apiKey: "sk-local", includeUsage: true });
  return {
    adapter: createAiSdkProvider({ model: local.chatModel("qwen3-8b-instruct") }),
    requestReceived: server.waitForRequest(1),
    requestCount: () => server.requests.length,
    close: () => server.close(),
  };
});

describe("provider contract: ai-sdk bridge over @ai-sdk/openai-compatible", () => {
  afterEach(compatContract.cleanup);
  it.for(compatContract.tests)("$title", (test) => test.run());
});
