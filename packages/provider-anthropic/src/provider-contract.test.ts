import Anthropic from "@anthropic-ai/sdk";
import { providerContractTests, type ProviderContractScenario } from "@yoke/testkit/contracts";
import { createReplayServer, type ReplayExchange } from "@yoke/testkit/replay";
import { afterEach, describe, it } from "vitest";
import { createAnthropicProvider } from "./index.js";
import { fixture } from "./__fixtures__/test-support.js";

const scenarios: Record<ProviderContractScenario, ReplayExchange> = {
  text: fixture("text-utf8.sse", { headers: { "request-id": "req_contract_text" } }),
  "tool-calls": fixture("parallel-tool-calls.sse"),
  "malformed-arguments": fixture("malformed-arguments.sse"),
  "rate-limited": fixture("error-429.json"),
  unavailable: fixture("error-529.json"),
  "stream-cut": fixture("stream-cut.sse", { cut: true }),
  // An `error` event (billing_error) after message_start, inside the 200.
  "in-stream-error": fixture("errors/billing-error.event.sse", { headers: { "request-id": "req_contract_billing" } }),
  slow: fixture("stream-cut.sse", { hang: true }),
  // stop_reason refusal after one whole tool_use block and during a second.
  "refusal-with-tool-calls": fixture("refusal-tool-call.sse"),
};

// Every fixture is served split at the contract's seeded offsets (see PROVIDER_CONTRACT_SEEDS).
const contract = providerContractTests(async (scenario, { seed }) => {
  const server = await createReplayServer([scenarios[scenario]], { seed });
  const client = new Anthropic({ apiKey: "sk-ant-test", baseURL: server.url });
  return {
    adapter: createAnthropicProvider({ model: "claude-sonnet-4-6", client }),
    requestReceived: server.waitForRequest(1),
    requestCount: () => server.requests.length,
    close: () => server.close(),
  };
});

// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite;
// `vitest list --no-static-parse` runs the file and lists every title.
describe("provider contract: anthropic messages", () => {
  afterEach(contract.cleanup);
  it.for(contract.tests)("$title", (test) => test.run());
});
