// Scenarios of control around the turn: interrupts, cancellation, the verifier gate,
// compensation and subagents.
import { YokeError, type ModelRequest, type VerifierV1 } from "@yoke/protocol";
import { defineTool } from "@yoke/runtime";
import { callTools, refuse, say } from "@yoke/testkit";
import { z } from "zod";
import { RUN } from "./corpus-kit.js";
import type { Scenario, ScenarioEnv } from "./scenario.js";
import { echoTool, failingTool, keyedTool, noted, startWith } from "./scenario-tools.js";

/** A tool whose handler sends an interrupt through a second harness on the same journal (another process). */
function interruptingTool(env: ScenarioEnv, request: { input: string } | { cancel: string }) {
  return defineTool({
    name: "slow",
    description: "Works while someone interrupts.",
    input: z.object({}),
    sideEffect: "none",
    async execute(_input, context) {
      await env.other().interrupt(context.run!.runId, request);
      return "worked";
    },
  });
}

/** Passes an answer that cites `[ok]`; otherwise sends the model back (a pure function of the answer, so a resume decides the same). */
const citationVerifier: VerifierV1 = {
  specificationVersion: "v1",
  id: "cites-ok",
  kind: "invariant",
  replaySafe: true,
  async verify({ answer }) {
    return answer.text.includes("[ok]")
      ? { verifierId: "cites-ok", kind: "invariant", passed: true }
      : { verifierId: "cites-ok", kind: "invariant", passed: false, reason: "the answer cites no [ok]" };
  },
};

const CLAIMS = JSON.stringify({ claims: [{ claim: "echo works", confidence: "high", evidence: [{ ref: "call:call_echo" }] }] });

/** A booking that commits, undone by its compensation when the payment beside it fails for good. */
function compensationTools() {
  const book = keyedTool("book", "reversible", async ({ key }) => ({ content: `booked ${key}`, receipt: `booking-${key}` }), {
    compensate: async () => undefined,
  });
  const pay = keyedTool("pay", "irreversible", async () => {
    throw new YokeError("TOOL_FAILED", "card declined");
  });
  return [book, pay];
}

export const CONTROL_SCENARIOS: readonly Scenario[] = [
  {
    name: "interrupt-input-mid-run",
    about: "an input sent by another process while a tool runs lands once, between turns, and the model sees it",
    world: (env) => ({
      script: { queues: [[callTools([{ name: "slow" }]), say("done")]] },
      options: { tools: [interruptingTool(env, { input: "Also check the staging database." })] },
    }),
    drive: startWith("Work slowly."),
    sqlite: true,
  },
  {
    name: "interrupt-cancel-mid-run",
    about: "a cancel sent by another process while a tool runs: the run ends cancelled at the next safe point",
    world: (env) => ({
      script: { queues: [[callTools([{ name: "slow" }]), say("never asked")]] },
      options: { tools: [interruptingTool(env, { cancel: "operator stop" })] },
    }),
    drive: startWith("Work slowly."),
  },
  {
    name: "interrupt-cancel-waiting",
    about: "a refusal waits for a person; a cancel sent while nobody drives the run lands on resume",
    world: () => ({ script: { queues: [[refuse("no")]] }, options: { tools: [echoTool] } }),
    drive: async (context) => {
      const lines: string[] = [];
      await noted(lines, context, () => context.harness.start("Do it.", { runId: RUN }));
      await noted(lines, context, () => context.harness.interrupt(RUN, { cancel: "operator stop" }));
      await noted(lines, context, () => context.harness.resume(RUN));
      return lines;
    },
  },
  {
    name: "cancelled-run",
    about: "the caller's signal aborts while a tool runs: the run ends cancelled, no further model call",
    world: ({ shared }) => {
      const controller = (shared.controller ??= new AbortController()) as AbortController;
      const stop = defineTool({
        name: "stop",
        description: "Aborts the caller's signal.",
        input: z.object({}),
        sideEffect: "none",
        execute: async () => {
          controller.abort(new Error("the caller gave up"));
          return "aborted";
        },
      });
      return { script: { queues: [[callTools([{ name: "stop" }]), say("never asked")]] }, options: { tools: [stop] } };
    },
    drive: async (context) => {
      const controller = context.env.shared.controller as AbortController;
      return [await context.outcomeOf(() => context.harness.start("Stop.", { runId: RUN, signal: controller.signal }))];
    },
  },
  {
    name: "verifier-pass",
    about: "the verifier gate passes the first answer: verified_success",
    world: () => ({ script: { queues: [[say("done [ok]")]] }, options: { tools: [echoTool], verifiers: [citationVerifier], workspace: "/srv/checkout" } }),
    drive: startWith("Finish."),
  },
  {
    name: "verifier-fail",
    about: "the verifier gate fails an answer: the reason goes back to the model, the next answer passes",
    world: () => ({ script: { queues: [[say("done"), say("done [ok]")]] }, options: { tools: [echoTool], verifiers: [citationVerifier] } }),
    drive: startWith("Finish."),
    sqlite: true,
  },
  {
    name: "verifier-fail-final",
    about: "a completion check that fails without retry: verification_failed",
    world: () => ({
      script: { queues: [[say("done")]] },
      options: { tools: [echoTool], checkCompletion: async () => ({ passed: false, reason: "summary.md does not exist", retry: false }) },
    }),
    drive: startWith("Finish."),
  },
  {
    name: "compensation",
    about: "a reversible booking commits, the irreversible payment beside it fails for good: the booking is compensated",
    world: () => ({
      script: {
        queues: [
          [
            callTools([
              { name: "book", args: { key: "room" } },
              { name: "pay", args: { key: "card" } },
            ]),
            say("could not pay; booking undone"),
          ],
        ],
      },
      options: { tools: compensationTools() },
    }),
    drive: startWith("Book a room and pay."),
    sqlite: true,
  },
  {
    name: "subagent",
    about: "a spawn starts a child run with its own stream and budget reserved from the parent's; its claims are the action's output",
    world: () => ({
      script: {
        queues: [
          [callTools([{ name: "spawn_subagent", args: { task: "check that echo works" } }]), say("the subagent says echo works")],
          [
            { ...callTools([{ name: "echo", args: { text: "ping" }, id: "call_echo" }]), usage: { inputTokens: 30, outputTokens: 5 } },
            { ...say(CLAIMS), usage: { inputTokens: 50, outputTokens: 20 } },
          ],
        ],
        route: (request: ModelRequest) => (request.tools.some((tool) => tool.name === "spawn_subagent") ? 0 : 1),
      },
      options: {
        tools: [echoTool, failingTool],
        maxTurns: 50,
        budget: { limits: { tokens: 1_000_000, fan_out: 10 } },
        subagents: { tools: ["echo"], budget: { tokens: 100_000, turns: 5 } },
      },
    }),
    drive: startWith("Find out whether echo works."),
    sqlite: true,
  },
];
