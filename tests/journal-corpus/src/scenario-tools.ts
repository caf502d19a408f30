// The tools and drives the scenarios share (copied in spirit from the runtime's own test
// doubles: a suite never imports another package's fixtures).
import { YokeError } from "@yoke/protocol";
import { defineTool, type SideEffect, type ToolDefinition } from "@yoke/runtime";
import { z } from "zod";
import { RUN } from "./corpus-kit.js";
import type { DriveContext } from "./scenario.js";

export const echoTool = defineTool({
  name: "echo",
  description: "Repeat the text.",
  input: z.object({ text: z.string() }),
  sideEffect: "none",
  execute: async ({ text }) => `echo: ${text}`,
});

export const failingTool = defineTool({
  name: "explode",
  description: "Always fails.",
  input: z.object({}),
  sideEffect: "none",
  execute: async () => {
    throw new YokeError("TOOL_FAILED", "the fuse was lit");
  },
});

const KeyInput = z.object({ key: z.string() });

/** A tool acting on one key, which is its write set: two calls on one key conflict. */
export function keyedTool(
  name: string,
  sideEffect: SideEffect,
  execute: ToolDefinition<typeof KeyInput>["execute"] = async ({ key }) => ({ content: `stored ${key}`, output: { key } }),
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

/** A tool whose output is `bytes` bytes of a fixed text. */
export function dumpTool(bytes: number) {
  const line = "0123456789abcdef log line of the dump tool\n";
  const text = line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
  return defineTool({
    name: "dump",
    description: "Dump the log.",
    input: z.object({}),
    sideEffect: "none",
    execute: async () => text,
  });
}

/** A drive that starts the run with `task` and writes down what it returned. */
export const startWith =
  (task: string) =>
  async ({ harness, outcomeOf }: DriveContext): Promise<string[]> => [await outcomeOf(() => harness.start(task, { runId: RUN }))];

/** Calls `call`, writes its return (or throw) to `lines`, and gives the return back (undefined when it threw). */
export async function noted<T>(lines: string[], context: DriveContext, call: () => Promise<T>): Promise<T | undefined> {
  let value: T | undefined;
  lines.push(
    await context.outcomeOf(async () => {
      value = await call();
      return value;
    }),
  );
  return value;
}
