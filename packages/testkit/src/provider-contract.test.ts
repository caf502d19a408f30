// The scripted model keeps the provider contract it helps others test.
import { YokeError } from "@yoke/protocol";
import { describeProviderContract, type ProviderContractScenario } from "./contracts.js";
import { createScriptedModel } from "./scripted-model.js";
import { callTools, failWith, malformedToolArguments, say, type ScriptedStep } from "./scripted-model-steps.js";

describeProviderContract("scripted model", (scenario) => {
  let received!: () => void;
  const requestReceived = new Promise<void>((resolve) => (received = resolve));
  const steps: Record<ProviderContractScenario, ScriptedStep> = {
    text: say("Hello! How can I help?"),
    "tool-calls": callTools([{ name: "get_weather", args: { city: "Paris" } }, { name: "get_weather", args: { city: "Tokyo" } }]),
    "malformed-arguments": malformedToolArguments("get_weather", '{"city": "Par'),
    "rate-limited": failWith(new YokeError("PROVIDER_RATE_LIMITED", "slow down", { details: { retryAfterMs: 2000 } })),
    unavailable: failWith(new YokeError("PROVIDER_UNAVAILABLE", "overloaded")),
    "stream-cut": failWith(new YokeError("PROVIDER_STREAM_CUT", "the stream ended early")),
    // Answers a macrotask after the call arrived: the contract aborts in between.
    slow: async () => {
      received();
      await new Promise((resolve) => setImmediate(resolve));
      return say("too late");
    },
  };
  const model = createScriptedModel([steps[scenario]]);
  return { adapter: model, requestReceived, requestCount: () => model.calls.length };
});
