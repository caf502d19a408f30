import {
  parseYokeEvent,
  sequentialIdSource,
  steppingClock,
  type JournalV1,
  type ModelRequest,
  type ProviderAdapterV1,
  type YokeEvent,
  YokeError,
} from "@yoke/protocol";
import { callTools, createScriptedModel, type ScriptedStep } from "@yoke/testkit";
import { echoTool, failingTool, instantSleep, TENANT } from "../../__fixtures__/harness-fixtures.js";
import { createHarness } from "../../harness.js";
import type { HarnessOptions } from "../../harness-types.js";

/** Claims resting on the child's own echo call (pinned to id `call_echo`). */
export const CLAIMS = JSON.stringify({ claims: [{ claim: "echo works", confidence: "high", evidence: [{ ref: "call:call_echo" }] }] });
export const claimsCiting = (ref: string) => JSON.stringify({ claims: [{ claim: "echo works", confidence: "high", evidence: [{ ref }] }] });

/** One provider for parent and children: a request that offers spawn_subagent is the parent's. */
export function routed(parent: readonly ScriptedStep[], child: readonly ScriptedStep[]) {
  const parentModel = createScriptedModel(parent);
  const childModel = createScriptedModel(child);
  const provider: ProviderAdapterV1 = {
    specificationVersion: "v1",
    provider: parentModel.provider,
    modelId: parentModel.modelId,
    capabilities: parentModel.capabilities,
    generate: (request: ModelRequest, options) =>
      request.tools.some((tool) => tool.name === "spawn_subagent") ? parentModel.generate(request, options) : childModel.generate(request, options),
  };
  return { provider, parentModel, childModel };
}

export function harnessOf(provider: ProviderAdapterV1, journal: JournalV1, options: Partial<HarnessOptions> = {}) {
  return createHarness({
    provider,
    journal,
    tools: [echoTool, failingTool],
    tenantId: TENANT,
    clock: steppingClock(1_000, 0),
    ids: sequentialIdSource(),
    sleep: instantSleep,
    maxTurns: 50,
    budget: { limits: { tokens: 1_000_000, fan_out: 10 } },
    subagents: { tools: ["echo"], budget: { tokens: 100_000, turns: 5 } },
    ...options,
  });
}

export async function eventsOf(journal: JournalV1, runId: string): Promise<YokeEvent[]> {
  const events: YokeEvent[] = [];
  for await (const event of journal.read({ tenantId: TENANT, runId })) events.push(parseYokeEvent(event));
  return events;
}

export const spawn = (task: string, share?: readonly string[]) =>
  callTools([{ name: "spawn_subagent", args: share === undefined ? { task } : { task, share: [...share] } }]);

/** The child run a spawn started: its id is derived from the spawn's action id. */
export function childRunIdIn(parent: readonly YokeEvent[]): string {
  const admitted = parent.find((event) => event.type === "action.admitted" && event.data.toolName === "spawn_subagent");
  if (admitted?.type !== "action.admitted") throw new YokeError("INTERNAL", "no spawn_subagent action in the parent's journal");
  return `run_sub-${admitted.data.actionId.slice("action_".length)}`;
}
