import { YokeError, type ModelRequest } from "@yoke/protocol";
import { callTools, failWith, malformedToolArguments, refuse, say, type ScriptedResponse, type ScriptedStep } from "../scripted-model-steps.js";
import type { SeededRandom } from "./prng.js";
import type { VirtualTime } from "./virtual-time.js";

/** What the model of a world says at one step of its script. */
export type WorldTurn =
  | { readonly kind: "calls"; readonly calls: readonly { readonly id: string; readonly name: string; readonly resource: string }[] }
  | { readonly kind: "refusal" }
  | { readonly kind: "malformed"; readonly name: string }
  | { readonly kind: "answer" };

/** The model of a world: its script, and the steps a scripted model is built from. */
export interface WorldModel {
  readonly script: readonly WorldTurn[];
  /** Answers for `createScriptedModel`: each reads the request to know where in the script it is. */
  steps(): ScriptedStep[];
}

/** Calls the model may make in one run (including retries): more than any world needs. */
const STEP_CAPACITY = 256;

/**
 * A model script drawn from `random`: `turns` tool turns of 1 to `maxCalls` calls on
 * `resources` (so writes conflict), some turns replaced by a refusal or a malformed call,
 * then a final answer. Which step answers a request is read from the request (the number of
 * answers the model gave before), not from a counter, so a model built afresh after a crash
 * continues the script where the journal left it. A step may first fail with a retryable
 * provider error (`errorRate`), and takes a seeded time on the world's clock.
 */
export function worldModel(options: {
  random: SeededRandom;
  time: VirtualTime;
  tools: readonly string[];
  turns: number;
  maxCalls: number;
  resources: number;
  oddRate: number;
  errorRate: number;
}): WorldModel {
  const { random, time } = options;
  const resources = Array.from({ length: options.resources }, (_, index) => `resource:${index}`);
  const script: WorldTurn[] = Array.from({ length: options.turns }, (_, turn) => {
    const draw = random.fork(`turn:${turn}`);
    if (draw.chance(options.oddRate)) return draw.chance(0.5) ? { kind: "refusal" } : { kind: "malformed", name: draw.pick(options.tools) };
    const count = draw.int(1, options.maxCalls);
    return {
      kind: "calls",
      calls: Array.from({ length: count }, (_, call) => ({
        id: `call_${turn + 1}_${call + 1}`,
        name: draw.pick(options.tools),
        resource: draw.pick(resources),
      })),
    };
  });
  script.push({ kind: "answer" });
  const respond = (turn: WorldTurn | undefined, index: number): ScriptedResponse => {
    const usage = { inputTokens: random.fork(`input:${index}`).int(50, 400), outputTokens: random.fork(`output:${index}`).int(5, 80) };
    switch (turn?.kind) {
      case "calls":
        return {
          ...callTools(turn.calls.map((call) => ({ id: call.id, name: call.name, args: { resource: call.resource, value: `${call.id} ${call.resource}` } }))),
          usage,
        };
      case "refusal":
        return { ...refuse("I will not do that."), usage };
      case "malformed":
        return { ...malformedToolArguments(turn.name, '{"resource": '), usage };
      default:
        return { ...say(index < script.length ? "All steps are done." : "Done."), usage };
    }
  };
  return {
    script,
    steps() {
      const failed = new Set<number>();
      const step: ScriptedStep = async (request: ModelRequest) => {
        const index = request.messages.filter((message) => message.role === "assistant").length;
        await time.sleep(random.fork(`latency:${index}`).int(10, 1_500));
        if (!failed.has(index) && random.fork(`error:${index}`).chance(options.errorRate)) {
          failed.add(index);
          return failWith(new YokeError("PROVIDER_UNAVAILABLE", `simulated outage at step ${index + 1}`));
        }
        return respond(script[index], index);
      };
      return Array.from({ length: STEP_CAPACITY }, () => step);
    },
  };
}
