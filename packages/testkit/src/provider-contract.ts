import {
  ModelResponseSchema,
  STOP_REASONS,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  type ProviderAdapterV1,
  type ToolSpec,
} from "@yoke/protocol";
import type { ProviderErrorKind } from "@yoke/protocol/provider-utils";
import { afterEach, describe, expect, it } from "vitest";
import { rejectionOf } from "./rejection.js";

/**
 * What the provider behind an adapter must answer, per contract test. A factory wires its
 * adapter to serve the named scenario (a replay server with recorded traffic, scripted
 * steps, …) for the request in `PROVIDER_CONTRACT_REQUESTS`:
 *
 * - `text`: a plain text answer, stop reason end of turn, with the provider's request-id
 *   response header (`x-request-id`, Anthropic's `request-id`): the response must carry it as
 *   `requestId`. Record one with multi-byte UTF-8 characters (accents, CJK, emoji): the split
 *   patterns then cut inside them, and the contract checks no replacement character (U+FFFD)
 *   comes out.
 * - `tool-calls`: two parallel calls of `get_weather`, `{ "city": "Paris" }` then `{ "city": "Tokyo" }`.
 * - `malformed-arguments`: one call of `get_weather` whose arguments are not valid JSON.
 * - `rate-limited`: HTTP 429 with a retry-after.
 * - `unavailable`: a 5xx (or the provider's overloaded error).
 * - `stream-cut`: the connection ends before the response is complete.
 * - `in-stream-error`: a 200 stream, with a request-id header, that then carries the
 *   provider's `error` event for an error retrying cannot fix (a spent quota, billing, an
 *   invalid request): it must reject as not retryable, with `details.kind` naming it and
 *   `details.requestId` the header's id, after one request.
 * - `slow`: a response that does not complete until the caller aborts.
 * - `refusal-with-tool-calls`: the provider stops the response for a refusal or a content
 *   filter (Anthropic `stop_reason: "refusal"`, OpenAI `content_filter` or
 *   `incomplete:content_filter`) after one whole call of `get_weather` `{ "city": "Paris" }`
 *   and while it writes a second. Nothing in such a response may run: stop reason `refusal`
 *   or `content_filter`, no `tool-call` part, both calls kept in order as
 *   `tool-call-withheld` parts (`withholdRefusedCalls` in `@yoke/protocol` does the mapping);
 *   a streaming adapter also emits a `tool-call-withheld` stream part for each, before `finish`.
 */
export type ProviderContractScenario =
  | "text"
  | "tool-calls"
  | "malformed-arguments"
  | "rate-limited"
  | "unavailable"
  | "stream-cut"
  | "in-stream-error"
  | "slow"
  | "refusal-with-tool-calls";

/** An adapter wired to one scenario, and what the contract may observe of its transport. */
export interface ProviderContractSubject {
  adapter: ProviderAdapterV1;
  /** Resolves once the call reached the provider (for `slow`: the contract aborts then). Default: the next macrotask. */
  requestReceived?: Promise<unknown>;
  /** Requests the provider received so far, when the subject can count them (checks no hidden retries). */
  requestCount?: () => number;
  close?: () => void | Promise<void>;
}

/**
 * What the contract asks of the subject besides the scenario: the split `seed` to serve the
 * recorded bodies with (pass it to `createReplayServer(exchanges, { seed })`). Every test
 * that reaches the provider runs once per seed, with the seed in its name.
 *
 * @example
 * ```ts
 * describeProviderContract("my adapter", async (scenario, { seed }) => {
 *   const server = await createReplayServer([fixtures[scenario]], { seed });
 *   return { adapter: createMyAdapter({ baseURL: server.url }), close: () => server.close() };
 * });
 * ```
 */
export interface ProviderContractContext {
  readonly seed: number;
}

/** Builds a subject for a scenario (a factory that ignores the context serves bodies unsplit). */
export type ProviderContractFactory = (
  scenario: ProviderContractScenario,
  context: ProviderContractContext,
) => ProviderContractSubject | Promise<ProviderContractSubject>;

/**
 * Options of `describeProviderContract`.
 *
 * @example
 * ```ts
 * // Reproduce a failure seen under "[split seed 2]" alone, or widen the search:
 * describeProviderContract("my adapter", factory, { seeds: [2] });
 * describeProviderContract("my adapter", factory, { seeds: [1, 2, 3, 4, 5, 6, 7, 8] });
 * ```
 */
export interface ProviderContractOptions {
  /** The split seeds each provider-facing test runs under. Default: `PROVIDER_CONTRACT_SEEDS`. */
  seeds?: readonly number[];
}

/**
 * The split seeds the provider contract runs under by default: three split patterns per
 * fixture. For the first body a server serves, seed 1 cuts pieces of up to 8 bytes, seed 2
 * up to 128, seed 3 up to 32, each with extra cuts inside characters and separators.
 *
 * @example
 * ```ts
 * describeProviderContract("my adapter", factory, { seeds: [...PROVIDER_CONTRACT_SEEDS, 99] });
 * ```
 */
export const PROVIDER_CONTRACT_SEEDS: readonly number[] = Object.freeze([1, 2, 3]);

/** The tool of the contract's tool-call scenarios; adapters' own tests may use it too. */
export const WEATHER_TOOL: ToolSpec = Object.freeze({
  name: "get_weather",
  description: "Current weather for a city.",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
});
const weather = WEATHER_TOOL;

/** The request the contract sends for each scenario. */
export const PROVIDER_CONTRACT_REQUESTS: Readonly<Record<ProviderContractScenario, ModelRequest>> = Object.freeze({
  text: { messages: [{ role: "user", content: [{ type: "text", text: "Say hello." }] }], tools: [] },
  "tool-calls": { messages: [{ role: "user", content: [{ type: "text", text: "Weather in Paris and Tokyo?" }] }], tools: [weather] },
  "malformed-arguments": { messages: [{ role: "user", content: [{ type: "text", text: "Weather in Paris?" }] }], tools: [weather] },
  "rate-limited": { messages: [{ role: "user", content: [{ type: "text", text: "Say hello." }] }], tools: [] },
  unavailable: { messages: [{ role: "user", content: [{ type: "text", text: "Say hello." }] }], tools: [] },
  "stream-cut": { messages: [{ role: "user", content: [{ type: "text", text: "Say hello." }] }], tools: [] },
  "in-stream-error": { messages: [{ role: "user", content: [{ type: "text", text: "Say hello." }] }], tools: [] },
  slow: { messages: [{ role: "user", content: [{ type: "text", text: "Say hello." }] }], tools: [] },
  "refusal-with-tool-calls": { messages: [{ role: "user", content: [{ type: "text", text: "Weather in Paris and Tokyo?" }] }], tools: [weather] },
});

// The kinds of provider error that retrying cannot fix (see protocol's PROVIDER_ERROR_CLASSES).
const NEVER_RETRYABLE_KINDS: readonly ProviderErrorKind[] = [
  "quota",
  "billing",
  "authentication",
  "permission",
  "not_found",
  "request_too_large",
  "context_length",
  "invalid_request",
  "content_policy",
];

function checkResponse(adapter: ProviderAdapterV1, response: ModelResponse): void {
  expect(ModelResponseSchema.safeParse(response).success).toBe(true);
  expect(response.provider).toBe(adapter.provider);
  expect(STOP_REASONS).toContain(response.stopReason);
  for (const value of [response.usage.inputTokens, response.usage.outputTokens]) {
    expect(Number.isInteger(value) && value >= 0).toBe(true);
  }
}

function checkStream(adapter: ProviderAdapterV1, parts: readonly ModelStreamPart[], response: ModelResponse): void {
  const finishes = parts.filter((part) => part.type === "finish");
  if (!adapter.capabilities.streaming && parts.length === 0) return;
  expect(finishes).toHaveLength(1);
  expect(parts.at(-1)).toEqual({ type: "finish", response });
  const streamedText = parts.flatMap((part) => (part.type === "text-delta" ? [part.text] : [])).join("");
  const text = response.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  if (adapter.capabilities.streaming) expect(streamedText).toBe(text);
}

/**
 * The contract every `ProviderAdapterV1` keeps, as a vitest suite. Run it in your adapter's
 * tests with a factory that wires the adapter to each scenario. Each test that calls the
 * provider runs once per split seed (`[split seed N]` in its name): serve the recorded bodies
 * with that seed, and a failure names the split pattern that reproduces it.
 *
 * @example
 * ```ts
 * describeProviderContract("my adapter", async (scenario, { seed }) => {
 *   const server = await createReplayServer([readReplayFixture(fixtures, `${scenario}.sse`)], { seed });
 *   return {
 *     adapter: createMyAdapter({ baseURL: server.url }),
 *     requestReceived: server.waitForRequest(1),
 *     requestCount: () => server.requests.length,
 *     close: () => server.close(),
 *   };
 * });
 * ```
 */
export function describeProviderContract(name: string, makeSubject: ProviderContractFactory, options: ProviderContractOptions = {}): void {
  const contract = providerContractTests(makeSubject, options);
  describe(`provider contract: ${name}`, () => {
    afterEach(contract.cleanup);
    for (const test of contract.tests) it(test.title, test.run);
  });
}

/** One test of the provider contract: its title (the same `describeProviderContract` gives it) and its body. */
export interface ProviderContractTest {
  readonly title: string;
  readonly run: () => Promise<void>;
}

/** The provider contract as data, for a test file that registers the tests itself. */
export interface ProviderContractTests {
  readonly tests: readonly ProviderContractTest[];
  /** Closes every subject the tests opened so far: register it with `afterEach`. */
  readonly cleanup: () => Promise<void>;
}

/**
 * The tests `describeProviderContract` registers, as a list. Register them with a literal
 * `describe` and `it.for` in the adapter's test file, and `vitest list` (which reads test
 * files statically) shows the contract suite instead of "No test suite found".
 *
 * @example
 * ```ts
 * const contract = providerContractTests(async (scenario, { seed }) => subjectFor(scenario, seed));
 * describe("provider contract: my adapter", () => {
 *   afterEach(contract.cleanup);
 *   it.for(contract.tests)("$title", (test) => test.run());
 * });
 * ```
 */
export function providerContractTests(makeSubject: ProviderContractFactory, options: ProviderContractOptions = {}): ProviderContractTests {
  const seeds = options.seeds ?? PROVIDER_CONTRACT_SEEDS;
  const tests: ProviderContractTest[] = [];
  const open: ProviderContractSubject[] = [];
  const firstSeed = seeds[0] ?? 0;
  const subject = async (scenario: ProviderContractScenario, seed = firstSeed) => {
    const made = await makeSubject(scenario, { seed });
    open.push(made);
    return made;
  };
  const cleanup = async () => {
    for (const made of open.splice(0)) await made.close?.();
  };
  const test = (title: string, run: () => Promise<void>) => void tests.push({ title, run });
  // A test that reaches the provider, once per split seed.
  const eachSeed = (title: string, body: (seed: number) => Promise<void>) => {
    for (const seed of seeds) test(`${title} [split seed ${seed}]`, () => body(seed));
  };
  test("declares specification v1, its ids and a well-formed capability matrix", async () => {
    const { adapter } = await subject("text");
    expect(adapter.specificationVersion).toBe("v1");
    expect(adapter.provider).toMatch(/^\S+$/);
    expect(adapter.modelId.length).toBeGreaterThan(0);
    const capabilities = adapter.capabilities;
    for (const flag of [capabilities.toolCalls, capabilities.parallelToolCalls, capabilities.streaming, capabilities.cancellation]) {
      expect(typeof flag).toBe("boolean");
    }
    for (const flag of Object.values(capabilities.usage)) expect(typeof flag).toBe("boolean");
    expect(capabilities.inputModalities).toContain("text");
    expect(["none", "strict-subset", "json-schema"]).toContain(capabilities.structuredOutput);
    expect(["none", "automatic", "breakpoints"]).toContain(capabilities.promptCaching);
    expect(capabilities.maxOutputTokens).toBeGreaterThan(0);
    expect(capabilities.contextWindow).toBeGreaterThanOrEqual(capabilities.maxOutputTokens);
  });

  eachSeed("normalizes a text answer (and streams it consistently)", async (seed) => {
    const { adapter, requestCount } = await subject("text", seed);
    const parts: ModelStreamPart[] = [];
    const response = await adapter.generate(PROVIDER_CONTRACT_REQUESTS.text, { onStreamPart: (part) => parts.push(part) });
    checkResponse(adapter, response);
    expect(response.stopReason).toBe("end_turn");
    expect(response.content.some((part) => part.type === "text" && part.text.length > 0)).toBe(true);
    for (const part of response.content) if (part.type === "text") expect(part.text).not.toContain("\uFFFD");
    checkStream(adapter, parts, response);
    // The provider's request id, so an incident can be taken to the provider.
    expect(typeof response.requestId).toBe("string");
    expect(response.requestId!.length).toBeGreaterThan(0);
    if (requestCount) expect(requestCount()).toBe(1);
  });

  eachSeed("returns parallel tool calls with distinct ids and parsed arguments, in order", async (seed) => {
    const { adapter } = await subject("tool-calls", seed);
    const parts: ModelStreamPart[] = [];
    const response = await adapter.generate(PROVIDER_CONTRACT_REQUESTS["tool-calls"], { onStreamPart: (part) => parts.push(part) });
    checkResponse(adapter, response);
    expect(response.stopReason).toBe("tool_use");
    const calls = response.content.flatMap((part) => (part.type === "tool-call" ? [part] : []));
    expect(calls.map((call) => [call.toolName, call.arguments])).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_weather", { city: "Tokyo" }],
    ]);
    for (const call of calls) {
      expect(call.toolCallId.length).toBeGreaterThan(0);
      expect(JSON.parse(call.rawArguments)).toEqual(call.arguments);
      expect(call.argumentsError).toBeUndefined();
    }
    expect(new Set(calls.map((call) => call.toolCallId)).size).toBe(2);
    checkStream(adapter, parts, response);
  });

  eachSeed("returns malformed tool arguments as a value with argumentsError, not a throw", async (seed) => {
    const { adapter } = await subject("malformed-arguments", seed);
    const response = await adapter.generate(PROVIDER_CONTRACT_REQUESTS["malformed-arguments"]);
    checkResponse(adapter, response);
    const call = response.content.find((part) => part.type === "tool-call");
    expect(call?.type).toBe("tool-call");
    if (call?.type !== "tool-call") return;
    expect(call.arguments).toBeUndefined();
    expect(typeof call.argumentsError).toBe("string");
    expect(() => JSON.parse(call.rawArguments)).toThrow();
  });

  eachSeed("rejects a rate limit with a retryable PROVIDER_RATE_LIMITED carrying retryAfterMs, without retrying itself", async (seed) => {
    const { adapter, requestCount } = await subject("rate-limited", seed);
    const error = await rejectionOf(adapter.generate(PROVIDER_CONTRACT_REQUESTS["rate-limited"]));
    expect(error.code).toBe("PROVIDER_RATE_LIMITED");
    expect(error.retryable).toBe(true);
    expect(typeof error.details.retryAfterMs).toBe("number");
    expect(error.details.retryAfterMs as number).toBeGreaterThanOrEqual(0);
    if (requestCount) expect(requestCount()).toBe(1);
  });

  eachSeed("rejects a provider failure with a retryable PROVIDER_UNAVAILABLE, without retrying itself", async (seed) => {
    const { adapter, requestCount } = await subject("unavailable", seed);
    const error = await rejectionOf(adapter.generate(PROVIDER_CONTRACT_REQUESTS.unavailable));
    expect(error.code).toBe("PROVIDER_UNAVAILABLE");
    expect(error.retryable).toBe(true);
    if (requestCount) expect(requestCount()).toBe(1);
  });

  eachSeed("rejects a cut stream with PROVIDER_STREAM_CUT and finishes nothing", async (seed) => {
    const { adapter } = await subject("stream-cut", seed);
    const parts: ModelStreamPart[] = [];
    const error = await rejectionOf(adapter.generate(PROVIDER_CONTRACT_REQUESTS["stream-cut"], { onStreamPart: (part) => parts.push(part) }));
    expect(error.code).toBe("PROVIDER_STREAM_CUT");
    expect(error.retryable).toBe(true);
    expect(parts.filter((part) => part.type === "finish")).toEqual([]);
  });

  eachSeed("rejects an error event inside a 200 stream as not retryable, with the request id, without retrying itself", async (seed) => {
    const { adapter, requestCount } = await subject("in-stream-error", seed);
    const parts: ModelStreamPart[] = [];
    const error = await rejectionOf(adapter.generate(PROVIDER_CONTRACT_REQUESTS["in-stream-error"], { onStreamPart: (part) => parts.push(part) }));
    expect(error.code).toMatch(/^PROVIDER_(REQUEST_INVALID|RATE_LIMITED)$/);
    expect(error.retryable).toBe(false);
    expect(NEVER_RETRYABLE_KINDS).toContain(error.details.kind);
    expect(typeof error.details.requestId).toBe("string");
    expect((error.details.requestId as string).length).toBeGreaterThan(0);
    expect(parts.filter((part) => part.type === "finish")).toEqual([]);
    if (requestCount) expect(requestCount()).toBe(1);
  });

  eachSeed("runs nothing in a refused or filtered response: its tool calls come back withheld, none executable", async (seed) => {
    const { adapter } = await subject("refusal-with-tool-calls", seed);
    const parts: ModelStreamPart[] = [];
    const response = await adapter.generate(PROVIDER_CONTRACT_REQUESTS["refusal-with-tool-calls"], { onStreamPart: (part) => parts.push(part) });
    checkResponse(adapter, response);
    expect(["refusal", "content_filter"]).toContain(response.stopReason);
    expect(response.content.filter((part) => part.type === "tool-call")).toEqual([]);
    const withheld = response.content.flatMap((part) => (part.type === "tool-call-withheld" ? [part] : []));
    expect(withheld.map((part) => part.toolName)).toEqual(["get_weather", "get_weather"]);
    expect(JSON.parse(withheld[0]!.rawArguments)).toEqual({ city: "Paris" });
    expect(new Set(withheld.map((part) => part.toolCallId)).size).toBe(2);
    checkStream(adapter, parts, response);
    // A stream says so too, before its finish: a view must not show a refused call as one to run.
    if (parts.length > 0) {
      const said = parts.slice(0, -1).flatMap((part) => (part.type === "tool-call-withheld" ? [part.toolCallId] : []));
      expect(said).toEqual(withheld.map((part) => part.toolCallId));
    }
  });

  test("rejects an already-aborted call with CANCELLED before calling the provider", async () => {
    const { adapter, requestCount } = await subject("text");
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf(adapter.generate(PROVIDER_CONTRACT_REQUESTS.text, { signal: controller.signal }));
    expect(error.code).toBe("CANCELLED");
    if (requestCount) expect(requestCount()).toBe(0);
  });

  eachSeed("rejects with CANCELLED when aborted mid-call", async (seed) => {
    const { adapter, requestReceived } = await subject("slow", seed);
    const controller = new AbortController();
    const pending = rejectionOf(adapter.generate(PROVIDER_CONTRACT_REQUESTS.slow, { signal: controller.signal }));
    await (requestReceived ?? new Promise((resolve) => setImmediate(resolve)));
    controller.abort();
    expect((await pending).code).toBe("CANCELLED");
  });
  return { tests, cleanup };
}
