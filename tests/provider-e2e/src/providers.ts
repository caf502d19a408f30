// The provider table: every end-to-end test here runs once per entry. An entry holds all that
// differs between the adapters; the runs, the tools and the assertions are shared. Plain data
// and factories, no vitest, so the kill-and-resume child process can import it too.
import { fileURLToPath } from "node:url";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { ProviderAdapterV1 } from "@yoke/protocol";
import { createAiSdkProvider } from "@yoke/provider-ai-sdk";
import { createAnthropicProvider } from "@yoke/provider-anthropic";
import { createOpenAIProvider } from "@yoke/provider-openai";

export interface ProviderCase {
  readonly name: string;
  /** The adapter over the real SDK, aimed at a replay server's base URL. */
  createProvider(replayUrl: string): ProviderAdapterV1;
  /** The path the SDK posts a model request to: the replay server checks it. */
  readonly replayPath: string;
  /** The provider package's recorded wire traffic (`e2e-turn-{1,2,3}.sse`, `e2e-truncated-turn-{1,2}.sse`, `error-429.json`, `text.sse`). */
  readonly fixtures: string;
  /** The wait the 429 fixture asks for, which the runtime must honour once. */
  readonly retryAfterMs: number;
  /** The response header that carries the provider's request id. */
  readonly requestIdHeader: string;
  /** The request id the 429 fixture carries. */
  readonly rateLimitRequestId: string;
  /** The provider's documented "overloaded, try again" answer (503; Anthropic's is 529), with no retry-after. */
  readonly unavailableFixture: string;
  /** The request id `unavailableFixture` carries. */
  readonly unavailableRequestId: string;
  /** A 200 stream that fails with an error that must never be retried (a spent quota, a billing error). */
  readonly inStreamFatalError: string;
  /** The id of the call the output limit cuts in `e2e-truncated-turn-1.sse`. */
  readonly truncatedCallId: string;
  /** Reduces one request body to the transcript shape it carried. */
  requestShape(body: unknown): string[];
  /** The shapes of the three requests of the uninterrupted run, in order. */
  readonly expectedRequestShapes: readonly string[][];
}

const fixturesOf = (packageDir: string): string => fileURLToPath(new URL(`../../../packages/${packageDir}/src/__fixtures__/`, import.meta.url));

type ResponsesBody = { input: { type?: string; role?: string }[] };
type ChatBody = { messages: { role: string; tool_call_id?: string; tool_calls?: { id: string }[] }[] };
type MessagesBody = { messages: { role: string; content: { type: string; id?: string; tool_use_id?: string }[] }[] };

export const providers: readonly ProviderCase[] = [
  {
    name: "openai",
    createProvider: (url) => createOpenAIProvider({ model: "gpt-5-mini", baseURL: `${url}/v1`, apiKey: "sk-test" }),
    replayPath: "/v1/responses",
    fixtures: fixturesOf("provider-openai"),
    retryAfterMs: 2000,
    requestIdHeader: "x-request-id",
    rateLimitRequestId: "req_rate_1",
    unavailableFixture: "error-503.json",
    unavailableRequestId: "req_unavail_1",
    inStreamFatalError: "errors/insufficient-quota.responses-event.sse",
    truncatedCallId: "call_e2e_write_cut",
    // Turn 1's encrypted reasoning item travels with turns 2 and 3; tool outputs pair by call id.
    requestShape: (body) => (body as ResponsesBody).input.map((item) => item.type ?? item.role ?? ""),
    expectedRequestShapes: [
      ["developer", "user"],
      ["developer", "user", "reasoning", "function_call", "function_call_output"],
      [
        "developer",
        "user",
        "reasoning",
        "function_call",
        "function_call_output",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
      ],
    ],
  },
  {
    name: "anthropic",
    createProvider: (url) => createAnthropicProvider({ model: "claude-sonnet-4-6", baseURL: url, apiKey: "sk-ant-test" }),
    replayPath: "/v1/messages",
    fixtures: fixturesOf("provider-anthropic"),
    retryAfterMs: 3000,
    requestIdHeader: "request-id",
    rateLimitRequestId: "req_011CRate",
    unavailableFixture: "error-529.json",
    unavailableRequestId: "req_011COverloaded",
    inStreamFatalError: "errors/billing-error.event.sse",
    truncatedCallId: "toolu_e2e_cut",
    // Turn 1's signed thinking block goes back with turns 2 and 3; tool results pair with tool_use ids.
    requestShape: (body) =>
      (body as MessagesBody).messages.map(
        (message) => `${message.role}: ${message.content.map((block) => block.id ?? block.tool_use_id ?? block.type).join(" ")}`,
      ),
    expectedRequestShapes: [
      ["user: text"],
      ["user: text", "assistant: thinking toolu_e2e_read", "user: toolu_e2e_read"],
      [
        "user: text",
        "assistant: thinking toolu_e2e_read",
        "user: toolu_e2e_read",
        "assistant: toolu_e2e_write toolu_e2e_list",
        "user: toolu_e2e_write toolu_e2e_list",
      ],
    ],
  },
  {
    name: "ai-sdk",
    // The AI SDK bridge over a real provider package: @ai-sdk/openai-compatible's chat model.
    createProvider: (url) =>
      createAiSdkProvider({
        model: createOpenAICompatible({ name: "local", baseURL: `${url}/v1`, apiKey: "sk-local", includeUsage: true }).chatModel("qwen3-8b-instruct"),
      }),
    replayPath: "/v1/chat/completions",
    fixtures: fixturesOf("provider-ai-sdk"),
    retryAfterMs: 3000,
    requestIdHeader: "x-request-id",
    rateLimitRequestId: "req_bridge_rate",
    unavailableFixture: "error-503.json",
    unavailableRequestId: "req_bridge_unavailable",
    inStreamFatalError: "errors/insufficient-quota.chat-event.sse",
    truncatedCallId: "call_e2e_write_cut",
    // Tool calls go back on the assistant message; each result pairs with its call id.
    requestShape: (body) =>
      (body as ChatBody).messages.map((message) =>
        [message.role, ...(message.tool_calls ?? []).map((call) => call.id), message.tool_call_id ?? ""].join(" ").trim(),
      ),
    expectedRequestShapes: [
      ["system", "user"],
      ["system", "user", "assistant call_e2e_read", "tool call_e2e_read"],
      [
        "system",
        "user",
        "assistant call_e2e_read",
        "tool call_e2e_read",
        "assistant call_e2e_write call_e2e_list",
        "tool call_e2e_write",
        "tool call_e2e_list",
      ],
    ],
  },
];
