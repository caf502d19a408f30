// Shared by the stream tests: a tool that waits until the test lets it finish, and the
// durable parts a run's whole journal gives (what any stream of it must yield, in order).
import { readYokeEvents, type JournalV1 } from "@yoke/protocol";
import { z } from "zod";
import { TENANT } from "../../__fixtures__/harness-fixtures.js";
import { defineTool } from "../../define-tool.js";
import { DurableParts } from "../durable-parts.js";
import { isDelta, type RunStreamDurablePart, type RunStreamPart } from "../stream-parts.js";

/** A `lookup` tool whose calls wait for `release()`; `entered` resolves when the first call starts. */
export function gatedLookup() {
  let release!: () => void;
  let enter!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  const tool = defineTool({
    name: "lookup",
    description: "Look up the weather in a city.",
    input: z.object({ city: z.string() }),
    sideEffect: "none",
    execute: async ({ city }) => {
      enter();
      await released;
      return `sunny in ${city}`;
    },
  });
  return { tool, release, entered };
}

/** The durable parts of the run's whole journal, in order. */
export async function journaledParts(journal: JournalV1, runId: string): Promise<RunStreamDurablePart[]> {
  const parts = new DurableParts();
  const out: RunStreamDurablePart[] = [];
  for await (const event of readYokeEvents(journal, { tenantId: TENANT, runId })) out.push(...parts.of(event));
  return out;
}

/** The parts that are neither deltas nor the end. */
export function durableOf(parts: readonly RunStreamPart[]): RunStreamDurablePart[] {
  return parts.filter((part): part is RunStreamDurablePart => !isDelta(part) && part.type !== "result" && part.type !== "error");
}

/** Each turn's text deltas joined, by turn id. */
export function textByTurn(parts: readonly RunStreamPart[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const part of parts) if (part.type === "text-delta") texts.set(part.turnId, (texts.get(part.turnId) ?? "") + part.text);
  return texts;
}

/** Each call's argument deltas joined, by tool call id. */
export function argumentsByCall(parts: readonly RunStreamPart[]): Map<string, string> {
  const args = new Map<string, string>();
  for (const part of parts) if (part.type === "tool-call-delta") args.set(part.toolCallId, (args.get(part.toolCallId) ?? "") + part.argumentsDelta);
  return args;
}

/** Lets the event loop turn `times` times (no clock involved). */
export async function turns(times: number): Promise<void> {
  for (let index = 0; index < times; index++) await new Promise<void>((resolve) => setImmediate(resolve));
}
