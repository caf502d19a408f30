// Shared test doubles for the runtime's tests: tools, journal wrappers and a harness factory
// with deterministic clock and ids.
import { createMemoryJournal } from "@yoke/journal";
import { YokeError, reduceRun, sequentialIdSource, steppingClock, type JournalEvent, type JournalV1, type ModelResponse, type RunScope } from "@yoke/protocol";
import { createScriptedModel, type ScriptedModel, type ScriptedStep } from "@yoke/testkit";
import { z } from "zod";
import { defineTool, type AnyTool, type SideEffect, type ToolDefinition } from "../define-tool.js";
import { createHarness } from "../harness.js";
import type { Harness, HarnessOptions } from "../harness-types.js";
import { RUNTIME_VERSION } from "../version.js";

export const TENANT = "tenant_test";
/**
 * The release of a journal another writer left, as a hand-built `run.started` pins it: the
 * runtime these tests run (its other fields unpinned, as in a journal written before them).
 */
export const WRITER_RELEASE = { runtime: `@yoke/runtime@${RUNTIME_VERSION}`, eventSchemaVersion: 1 };

/** The events that admit one call (proposed through executing), journaled with the response before anything runs. */
export const ADMITTED = ["action.admitted"] as const;

export const echoTool = defineTool({
  name: "echo",
  description: "Repeat the text.",
  input: z.object({ text: z.string() }),
  sideEffect: "none",
  execute: async ({ text }) => `echo: ${text}`,
});

/** A tool that counts its calls (per attempt) and records what it was given. */
export function countingTool(name: string, sideEffect: SideEffect) {
  const calls: { key: string; attempt: number; actionId: string }[] = [];
  const tool = defineTool({
    name,
    description: `Stores a value (${sideEffect}).`,
    input: z.object({ key: z.string() }),
    sideEffect,
    async execute({ key }, context) {
      calls.push({ key, attempt: context.attempt, actionId: context.actionId });
      return { content: `stored ${key}`, output: { key } };
    },
  });
  return { tool, calls };
}

const KeyInput = z.object({ key: z.string() });

/**
 * A tool acting on one key, which is its write set (so two calls on one key conflict), with
 * the handler and the extras (`reconcile`, `compensate`, `maxAttempts`) given.
 */
export function keyedTool(
  name: string,
  sideEffect: SideEffect,
  execute: ToolDefinition<typeof KeyInput>["execute"],
  extra: Pick<ToolDefinition<typeof KeyInput>, "reconcile" | "compensate" | "maxAttempts"> = {},
) {
  return defineTool({
    name,
    description: `Acts on one key (${sideEffect}).`,
    input: KeyInput,
    sideEffect,
    access: ({ key }) => ({ reads: [], writes: [key] }),
    execute,
    ...extra,
  });
}

export const failingTool = defineTool({
  name: "explode",
  description: "Always fails.",
  input: z.object({}),
  sideEffect: "none",
  execute: async () => {
    throw new YokeError("TOOL_FAILED", "the fuse was lit");
  },
});

/** Records every append: the event types of each transaction. */
export interface RecordingJournal extends JournalV1 {
  readonly appends: string[][];
}

export function recordingJournal(inner: JournalV1 = createMemoryJournal()): RecordingJournal {
  const appends: string[][] = [];
  return {
    ...delegate(inner),
    appends,
    async append(scope, expectedSeq, drafts, options) {
      const result = await inner.append(scope, expectedSeq, drafts, options);
      appends.push(drafts.map((draft) => draft.type));
      return result;
    },
  };
}

/** The error a crashing journal throws: the process "died" here. */
export class SimulatedCrash extends YokeError {
  constructor() {
    super("INTERNAL", "simulated crash");
  }
}

/**
 * Lets `allowed` appends through, then "crashes": the next append either is lost (nothing
 * written) or is written and the process dies before it learns so. Every later call throws.
 */
export function crashingJournal(inner: JournalV1, allowed: number, mode: "lost" | "written"): JournalV1 {
  let count = 0;
  let dead = false;
  return {
    ...delegate(inner),
    async append(scope, expectedSeq, drafts, options) {
      if (dead) throw new SimulatedCrash();
      if (count === allowed) {
        dead = true;
        if (mode === "written") await inner.append(scope, expectedSeq, drafts, options);
        throw new SimulatedCrash();
      }
      count += 1;
      return inner.append(scope, expectedSeq, drafts, options);
    },
  };
}

function delegate(inner: JournalV1): JournalV1 {
  return {
    specificationVersion: inner.specificationVersion,
    capabilities: inner.capabilities,
    ...(inner.leases === undefined ? {} : { leases: inner.leases }),
    append: (scope, expectedSeq, drafts, options) => inner.append(scope, expectedSeq, drafts, options),
    read: (scope, options) => inner.read(scope, options),
    head: (scope) => inner.head(scope),
    verify: (scope) => inner.verify(scope),
    listRuns: (tenantId) => inner.listRuns(tenantId),
    close: () => inner.close(),
  };
}

export const instantSleep = async () => undefined;

export interface TestRig {
  harness: Harness;
  model: ScriptedModel;
  journal: RecordingJournal;
}

/** A harness with a memory journal, a still clock, sequential ids and an instant sleep. */
export function rig(
  steps: readonly ScriptedStep[],
  options: Omit<Partial<HarnessOptions>, "journal"> & { journal?: JournalV1; idStart?: number } = {},
): TestRig {
  const { idStart, ...overrides } = options;
  const model = createScriptedModel(steps);
  const journal = recordingJournal(overrides.journal);
  const harness = createHarness({
    provider: model,
    // A harness takes tools or a registry; a test giving a registry has its tools there.
    ...(overrides.registry === undefined ? { tools: [echoTool] } : {}),
    tenantId: TENANT,
    clock: steppingClock(1_000, 0),
    ids: sequentialIdSource(idStart),
    sleep: instantSleep,
    ...overrides,
    journal,
  }) as Harness;
  return { harness, model, journal };
}

export async function readAll(journal: JournalV1, runId: string): Promise<JournalEvent[]> {
  const events: JournalEvent[] = [];
  for await (const event of journal.read({ tenantId: TENANT, runId })) events.push(event);
  return events;
}

export async function foldJournal(journal: JournalV1, scope: RunScope) {
  const events: JournalEvent[] = [];
  for await (const event of journal.read(scope)) events.push(event);
  return reduceRun(events);
}

/**
 * A journal another writer left in run `runId` right after the model's response `content` (4
 * events: run.started with `tools`, turn.started, model.requested, model.responded): its calls
 * have no verdict yet, for a resume to judge.
 */
export async function journalCutAfterResponse(
  runId: string,
  tools: readonly AnyTool[],
  content: ModelResponse["content"],
  options: { task?: string; limits?: { maxTurns: number; maxToolCallsPerTurn?: number } } = {},
): Promise<JournalV1> {
  const journal = createMemoryJournal();
  const run = { sessionId: "session_x", task: options.task ?? "t", tools: tools.map((tool) => tool.spec), limits: options.limits ?? { maxTurns: 3 } };
  await journal.append({ tenantId: TENANT, runId }, 0, [
    { type: "run.started", at: 0, data: { ...run, release: WRITER_RELEASE } },
    { type: "turn.started", at: 0, causationId: "turn_x", data: { turnId: "turn_x", index: 1 } },
    { type: "model.requested", at: 0, causationId: "turn_x", data: { turnId: "turn_x", requestHash: "0".repeat(64), messageCount: 1 } },
    {
      type: "model.responded",
      at: 0,
      causationId: "turn_x",
      data: {
        turnId: "turn_x",
        latencyMs: 0,
        response: { provider: "p", model: "m", stopReason: "tool_use", usage: { inputTokens: 0, outputTokens: 0 }, content },
      },
    },
  ]);
  return journal;
}

export { rejectionOf } from "@yoke/testkit";

export type { AnyTool };
