// Scenarios of the turn itself: the model's answer, the calls it proposes, how they run and
// what the loop does with every odd response.
import { createMemoryArtifactStore } from "@yoke/journal";
import { YokeError, type ArtifactStoreV2 } from "@yoke/protocol";
import { callTools, failWith, say, truncatedToolCall } from "@yoke/testkit";
import { z } from "zod";
import { RUN } from "./corpus-kit.js";
import type { Scenario } from "./scenario.js";
import { dumpTool, echoTool, failingTool, keyedTool, noted, startWith } from "./scenario-tools.js";

const Weather = z.object({ city: z.string(), celsius: z.number(), unit: z.string().default("C") });

export const TURN_SCENARIOS: readonly Scenario[] = [
  {
    name: "plain-answer",
    about: "one turn, a final answer, run.completed",
    world: () => ({ script: { queues: [[say("done")]] }, options: { tools: [echoTool], systemPrompt: "You are terse." } }),
    drive: startWith("Say done."),
    sqlite: true,
  },
  {
    name: "tool-turn",
    about: "a tool turn: the response with the admission, then the result with the next request (two commits)",
    world: () => ({ script: { queues: [[callTools([{ name: "echo", args: { text: "hi" } }]), say("done")]] }, options: { tools: [echoTool] } }),
    drive: startWith("Echo hi."),
    sqlite: true,
  },
  {
    name: "parallel-conflicting",
    about: "three calls in one response: two on key a conflict and run in proposal order, key b runs beside them",
    world: () => ({
      script: {
        queues: [
          [
            callTools([
              { name: "store", args: { key: "a" } },
              { name: "store", args: { key: "b" } },
              { name: "store", args: { key: "a" } },
            ]),
            say("stored"),
          ],
        ],
      },
      options: { tools: [keyedTool("store", "idempotent")] },
    }),
    drive: startWith("Store a, b and a again."),
    sqlite: true,
  },
  {
    name: "failing-tool",
    about: "a tool that throws: action.failed, the model sees the error and answers",
    world: () => ({ script: { queues: [[callTools([{ name: "explode", args: {} }]), say("it failed")]] }, options: { tools: [echoTool, failingTool] } }),
    drive: startWith("Light the fuse."),
  },
  {
    name: "truncated-tool-call",
    about: "a response whose tool call the output limit cut: never run, a note to the model, asked again",
    world: () => ({
      script: { queues: [[truncatedToolCall("echo", '{"te', { calls: [{ name: "echo", args: { text: "whole" } }] }), say("done")]] },
      options: { tools: [echoTool] },
    }),
    drive: startWith("Echo twice."),
  },
  {
    name: "refusal-with-calls",
    about: "a refusal carrying tool calls: the calls are withheld, nothing runs, the run waits; a person answers",
    world: () => ({
      script: {
        queues: [
          [
            {
              content: [
                { type: "refusal", text: "I will not." },
                { type: "tool-call", toolName: "store", arguments: { key: "a" } },
              ],
              stopReason: "refusal",
            },
            say("ok"),
          ],
        ],
      },
      options: { tools: [keyedTool("store", "irreversible")] },
    }),
    drive: async (context) => {
      const lines: string[] = [];
      await noted(lines, context, () => context.harness.start("Store a.", { runId: RUN }));
      await noted(lines, context, () => context.harness.resume(RUN, { input: "It is my own key." }));
      return lines;
    },
  },
  {
    name: "too-many-calls",
    about: "four calls under maxToolCallsPerTurn 2: two run, the rest go back as one TOOL_CALL_LIMIT",
    world: () => ({
      script: { queues: [[callTools(["1", "2", "3", "4"].map((text) => ({ name: "echo", args: { text } }))), say("done")]] },
      options: { tools: [echoTool], maxToolCallsPerTurn: 2 },
    }),
    drive: startWith("Echo four times."),
  },
  {
    name: "model-error",
    about: "a retryable provider error until the retries run out: model.failed per attempt, run.failed; the start throws",
    world: () => {
      const outage = () => failWith(new YokeError("PROVIDER_UNAVAILABLE", "503 overloaded", { details: { requestId: "req_503" } }));
      return { script: { queues: [[outage(), outage(), outage(), say("back")]] }, options: { tools: [echoTool], modelRetries: 2 } };
    },
    drive: async (context) => {
      const lines: string[] = [];
      await noted(lines, context, () => context.harness.start("Answer.", { runId: RUN }));
      await noted(lines, context, () => context.harness.resume(RUN));
      return lines;
    },
    sqlite: true,
  },
  {
    name: "structured-output-retry",
    about: "an output schema: an answer that is not JSON goes back to the model, the next one matches",
    world: () => ({
      script: { queues: [[say("It is 21 degrees in Paris."), say('```json\n{"city":"Paris","celsius":21}\n```')]] },
      options: { tools: [echoTool], output: Weather },
    }),
    drive: startWith("Weather in Paris?"),
  },
  {
    name: "output-limit-artifacts",
    about: "a tool output over maxEventOutputBytes with an artifact store: the event keeps a prefix and the artifact's ref",
    world: ({ shared }) => {
      shared.artifacts ??= createMemoryArtifactStore();
      return {
        script: { queues: [[callTools([{ name: "dump", args: {} }]), say("done")]] },
        options: {
          tools: [dumpTool(10_000)],
          maxEventOutputBytes: 4_096,
          artifacts: shared.artifacts as ArtifactStoreV2,
          context: { toolOutputBudgetBytes: 1_000 },
        },
      };
    },
    drive: startWith("Dump the log."),
  },
  {
    name: "output-limit-no-store",
    about: "a tool output over maxEventOutputBytes without a store: the model is shown TOOL_OUTPUT_TOO_LARGE",
    world: () => ({
      script: { queues: [[callTools([{ name: "dump", args: {} }]), say("done")]] },
      options: { tools: [dumpTool(10_000)], maxEventOutputBytes: 4_096 },
    }),
    drive: startWith("Dump the log."),
  },
  {
    name: "loop-detection",
    about: "identical calls: steered at the 3rd repeat, escalated at the 4th; a person answers and the run ends",
    world: () => {
      const echo = () => callTools([{ name: "echo", args: { text: "x" } }]);
      return { script: { queues: [[echo(), echo(), echo(), echo(), say("stopped")]] }, options: { tools: [echoTool] } };
    },
    drive: async (context) => {
      const lines: string[] = [];
      await noted(lines, context, () => context.harness.start("Echo x.", { runId: RUN }));
      await noted(lines, context, () => context.harness.resume(RUN, { input: "Stop echoing; answer." }));
      return lines;
    },
    sqlite: true,
  },
];
