import OpenAI from "openai";
import { providerContractTests, type ProviderContractScenario } from "@yoke/testkit/contracts";
import { createReplayServer, type ReplayExchange } from "@yoke/testkit/replay";
import { afterEach, describe, it } from "vitest";
import { createOpenAIProvider, type OpenAIApi } from "./index.js";
import { fixture } from "./__fixtures__/test-support.js";

const scenarios: Record<OpenAIApi, Record<ProviderContractScenario, ReplayExchange>> = {
  responses: {
    text: fixture("text-utf8.sse", { headers: { "x-request-id": "req_contract_responses_text" } }),
    "tool-calls": fixture("parallel-tool-calls.sse"),
    "malformed-arguments": fixture("malformed-arguments.sse"),
    "rate-limited": fixture("error-429.json"),
    unavailable: fixture("error-503.json"),
    "stream-cut": fixture("stream-cut.sse", { cut: true }),
    // An `error` event (insufficient_quota) after response.created, inside the 200.
    "in-stream-error": fixture("errors/insufficient-quota.responses-event.sse", { headers: { "x-request-id": "req_contract_responses_quota" } }),
    slow: fixture("stream-cut.sse", { hang: true }),
    // incomplete:content_filter after one completed function_call and during a second.
    "refusal-with-tool-calls": fixture("content-filter-tool-call.sse"),
  },
  chat: {
    text: fixture("chat-text-utf8.sse", { headers: { "x-request-id": "req_contract_chat_text" } }),
    "tool-calls": fixture("chat-parallel-tool-calls.sse"),
    "malformed-arguments": fixture("chat-malformed-arguments.sse"),
    "rate-limited": fixture("error-429.json"),
    unavailable: fixture("error-503.json"),
    "stream-cut": fixture("chat-stream-cut.sse", { cut: true }),
    // A `data: {"error": …}` chunk (insufficient_quota) after the first delta, inside the 200.
    "in-stream-error": fixture("errors/insufficient-quota.chat-event.sse", { headers: { "x-request-id": "req_contract_chat_quota" } }),
    slow: fixture("chat-stream-cut.sse", { hang: true }),
    // finish_reason content_filter after one whole tool call and during a second.
    "refusal-with-tool-calls": fixture("chat-content-filter-tool-call.sse"),
  },
};

// Every fixture is served split at the contract's seeded offsets (see PROVIDER_CONTRACT_SEEDS).
const contractFor = (api: OpenAIApi) =>
  providerContractTests(async (scenario, { seed }) => {
    const server = await createReplayServer([scenarios[api][scenario]], { seed });
    const client = new OpenAI({ apiKey: "sk-test", baseURL: `${server.url}/v1` });
    return {
      adapter: createOpenAIProvider({ model: api === "chat" ? "gpt-4.1-mini" : "gpt-5-mini", api, client }),
      requestReceived: server.waitForRequest(1),
      requestCount: () => server.requests.length,
      close: () => server.close(),
    };
  });

// Literal describes and it.for, so `vitest list` (a static read of this file) finds the suites;
// `vitest list --no-static-parse` runs the file and lists every title.
describe("provider contract: openai responses", () => {
  const contract = contractFor("responses");
  afterEach(contract.cleanup);
  it.for(contract.tests)("$title", (test) => test.run());
});

describe("provider contract: openai chat", () => {
  const contract = contractFor("chat");
  afterEach(contract.cleanup);
  it.for(contract.tests)("$title", (test) => test.run());
});
