// A small run with something to see in a trace: a tool that reads, one that writes, a call to
// a tool that does not exist, a tool that fails, and a model call the provider rate-limits once
// (the runtime retries it). The model is scripted, so the run (and its spans) is the same each time.
import { createMemoryJournal } from "@yoke/journal";
import { sequentialIdSource, steppingClock, YokeError, type YokeEvent } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { z } from "zod";

export const TENANT = "tenant_demo";
export const RUN_ID = "run_otel_demo";
export const MODEL = "scripted-1";
export const START = Date.UTC(2026, 0, 1);

function demoTools(files: Map<string, string>) {
  return [
    defineTool({
      name: "read_file",
      description: "Read a file.",
      input: z.object({ path: z.string() }),
      sideEffect: "none",
      async execute({ path }) {
        const text = files.get(path);
        if (text === undefined) throw new YokeError("TOOL_FAILED", `no file ${path}`);
        return text;
      },
    }),
    defineTool({
      name: "write_file",
      description: "Create or replace a file.",
      input: z.object({ path: z.string(), content: z.string() }),
      sideEffect: "idempotent",
      async execute({ path, content }) {
        files.set(path, content);
        return `wrote ${content.length} characters to ${path}`;
      },
    }),
  ];
}

function demoScript() {
  return [
    { ...callTools([{ name: "read_file", args: { path: "todo.txt" } }]), usage: { inputTokens: 120, outputTokens: 14 }, id: "resp_1" },
    // The provider refuses the second call once; the runtime journals model.failed and asks again.
    { error: new YokeError("PROVIDER_RATE_LIMITED", "429 Too Many Requests") },
    {
      ...callTools([
        { name: "write_file", args: { path: "summary.md", content: "- ship it\n" } },
        { name: "read_file", args: { path: "missing.txt" } },
        { name: "delete_everything", args: {} },
      ]),
      usage: { inputTokens: 180, outputTokens: 40, cacheReadTokens: 100 },
      id: "resp_2",
    },
    { ...say("summary.md is written."), usage: { inputTokens: 260, outputTokens: 8 }, id: "resp_3" },
  ];
}

export interface DemoResult {
  readonly events: YokeEvent[];
  readonly outcome: string;
}

/**
 * Runs the demo on a memory journal, calling `onEvent` after each durable append (pass an
 * `@yoke/otel` observer's `onEvent` to get the spans live), and returns the journaled events.
 */
export async function runDemo(onEvent?: (event: YokeEvent) => void): Promise<DemoResult> {
  const files = new Map([["todo.txt", "ship it\n"]]);
  const journal = createMemoryJournal();
  const clock = steppingClock(START, 5);
  const model = createScriptedModel(demoScript(), { modelId: MODEL });
  const harness = createHarness({
    journal,
    provider: model,
    tools: demoTools(files),
    tenantId: TENANT,
    clock,
    ids: sequentialIdSource(),
    systemPrompt: "You are a careful assistant.",
    maxTurns: 6,
    modelRetries: 1,
    // The retry after the rate limit waits on the journaled clock, not on a real timer.
    sleep: async (ms) => clock.advance(ms),
    checkCompletion: async () => (files.has("summary.md") ? { passed: true } : { passed: false, reason: "summary.md is missing" }),
    ...(onEvent ? { onEvent } : {}),
  });
  const result = await harness.start("Summarize todo.txt into summary.md.", { runId: RUN_ID });
  model.assertConsumed();
  const events: YokeEvent[] = [];
  for await (const event of harness.events(result.runId)) events.push(event);
  // The demo's scripted model never refuses, so the run ends; a waiting run (`result.waiting`) has no outcome yet.
  return { events, outcome: result.waiting ? "waiting" : result.outcome.status };
}
