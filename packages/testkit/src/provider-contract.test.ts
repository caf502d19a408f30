// The scripted model keeps the provider contract it helps others test.
import { YokeError, type GenerateOptions, type ModelResponse, type ProviderAdapterV1 } from "@yoke/protocol";
import { expect, it } from "vitest";
import { PROVIDER_CONTRACT_SEEDS, describeProviderContract, type ProviderContractScenario } from "./contracts.js";
import { createScriptedModel } from "./scripted-model.js";
import { callTools, failWith, malformedToolArguments, say, type ScriptedStep } from "./scripted-model-steps.js";

const seedsSeen = new Map<ProviderContractScenario, number[]>();

describeProviderContract("scripted model", (scenario, { seed }) => {
  seedsSeen.set(scenario, [...(seedsSeen.get(scenario) ?? []), seed]);
  let received!: () => void;
  const requestReceived = new Promise<void>((resolve) => (received = resolve));
  const steps: Record<ProviderContractScenario, ScriptedStep> = {
    text: say("Hello! How can I help?"),
    "tool-calls": callTools([
      { name: "get_weather", args: { city: "Paris" } },
      { name: "get_weather", args: { city: "Tokyo" } },
    ]),
    "malformed-arguments": malformedToolArguments("get_weather", '{"city": "Par'),
    "rate-limited": failWith(new YokeError("PROVIDER_RATE_LIMITED", "slow down", { details: { retryAfterMs: 2000 } })),
    unavailable: failWith(new YokeError("PROVIDER_UNAVAILABLE", "overloaded")),
    "stream-cut": failWith(new YokeError("PROVIDER_STREAM_CUT", "the stream ended early")),
    "in-stream-error": failWith(
      new YokeError("PROVIDER_RATE_LIMITED", "You exceeded your current quota", {
        retryable: false,
        details: { kind: "quota", requestId: "req_scripted_quota" },
      }),
    ),
    // A refusal after one whole call and during a second, as a model writes it.
    "refusal-with-tool-calls": {
      content: [
        { type: "tool-call", toolName: "get_weather", arguments: { city: "Paris" } },
        { type: "tool-call", toolName: "get_weather", rawArguments: '{"city":"To' },
      ],
      stopReason: "refusal",
    },
    // Answers a macrotask after the call arrived: the contract aborts in between.
    slow: async () => {
      received();
      await new Promise((resolve) => setImmediate(resolve));
      return say("too late");
    },
  };
  const model = createScriptedModel([steps[scenario]]);
  // The scripted model has no transport: its subject stamps the request id an HTTP response carries.
  const adapter: ProviderAdapterV1 = {
    ...model,
    generate: async (request, options = {}) => {
      const stamp = (response: ModelResponse): ModelResponse => ({ ...response, requestId: "req_scripted_1" });
      const relay = options.onStreamPart;
      const onStreamPart: GenerateOptions["onStreamPart"] =
        relay === undefined ? undefined : (part) => relay(part.type === "finish" ? { type: "finish", response: stamp(part.response) } : part);
      return stamp(await model.generate(request, onStreamPart === undefined ? options : { ...options, onStreamPart }));
    },
  };
  return { adapter, requestReceived, requestCount: () => model.calls.length };
});

// Runs after the suite above (a file's tests run in order).
it("hands every provider-facing scenario each split seed once, and the rest the first seed", () => {
  expect(PROVIDER_CONTRACT_SEEDS.length).toBeGreaterThanOrEqual(3);
  const perSeed = [
    "tool-calls",
    "malformed-arguments",
    "rate-limited",
    "unavailable",
    "stream-cut",
    "in-stream-error",
    "slow",
    "refusal-with-tool-calls",
  ] as const;
  for (const scenario of perSeed) expect(seedsSeen.get(scenario), scenario).toEqual([...PROVIDER_CONTRACT_SEEDS]);
  // `text`: the capability test and the already-aborted test (first seed), then the text test per seed.
  expect(seedsSeen.get("text")).toEqual([PROVIDER_CONTRACT_SEEDS[0], ...PROVIDER_CONTRACT_SEEDS, PROVIDER_CONTRACT_SEEDS[0]]);
});
