// The harness module `yoke replay --harness` loads in the CLI's tests, and the harness its runs
// are recorded with: a scripted tool turn on a still clock with sequential ids (a time or id
// source that replay serves from the record). YOKE_TEST_MAX_TURNS changes one setting of its code.
import { sequentialIdSource, type JournalV1 } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { z } from "zod";
import type { HarnessFactory } from "../../src/commands/resume.ts";

export const REPLAY_TENANT = "tenant_replay";
export const REPLAY_RUN = "run_replay";

const echo = defineTool({
  name: "echo",
  description: "Repeat the text.",
  input: z.object({ text: z.string() }),
  sideEffect: "none",
  execute: async ({ text }) => `echo: ${text}`,
});

/** The harness on `journal`, with the model's script started past its first `answered` answers (a process resuming the run). */
export function replayHarness(journal: JournalV1, options: { answered?: number; idStart?: number; maxTurns?: number } = {}) {
  const steps = [callTools([{ name: "echo", args: { text: "one" } }]), callTools([{ name: "echo", args: { text: "two" } }]), say("done")];
  return createHarness({
    journal,
    tenantId: REPLAY_TENANT,
    provider: createScriptedModel(steps.slice(options.answered ?? 0)),
    tools: [echo],
    clock: { specificationVersion: "v1", now: () => 1_767_225_600_000 },
    ids: sequentialIdSource(options.idStart ?? 1),
    sleep: async () => undefined,
    ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
  });
}

const factory: HarnessFactory = async ({ journal }) => {
  const maxTurns = process.env.YOKE_TEST_MAX_TURNS;
  return replayHarness(journal, maxTurns === undefined ? {} : { maxTurns: Number(maxTurns) });
};
export default factory;
