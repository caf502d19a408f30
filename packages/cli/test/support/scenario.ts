// The agent every produced journal runs: a scripted model over a small workspace with three
// tools (read, write, check), on a SQLite journal with a priced budget, like the quick-start.
// Shared by the in-process producers (journals.ts), the child process that is SIGKILLed
// (scenario-child.ts) and the harness module `yoke resume` loads (resume-harness.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { steppingClock, ulidIdSource, YokeError, type JournalV1, type PricingTable } from "@yoke/protocol";
import { createHarness, defineTool, type Logger } from "@yoke/runtime";
import { callTools, createScriptedModel, say, type ScriptedStep } from "@yoke/testkit";
import { z } from "zod";

export const TENANT = "tenant_cli";
export const RUN_ID = "run_cli";
export const TASK = "Summarize notes/todo.txt into summary.md as a markdown list, then run the check.";
export const START = Date.UTC(2026, 0, 1);
export const SUMMARY = "# Summary\n\n- ship the journal\n- write the tests\n- run the demo\n";
export const PRICES: PricingTable = {
  version: 1,
  id: "cli-test-prices",
  currency: "USD",
  models: [{ provider: "scripted", model: "scripted-*", input: 3_000_000, output: 15_000_000 }],
};

const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens });

/** The model's answers, turn by turn: a read, a malformed write (rejected), a write, a check, the answer. */
export function agentScript(toolResultMarker = ""): ScriptedStep[] {
  return [
    { ...callTools([{ name: "read_file", args: { path: "notes/todo.txt" } }]), usage: usage(350, 18) },
    { ...callTools([{ name: "write_file", args: { path: "summary.md" } }]), usage: usage(420, 22) },
    { ...callTools([{ name: "write_file", args: { path: "summary.md", content: SUMMARY } }]), usage: usage(500, 64) },
    { ...callTools([{ name: "run_check", args: { note: toolResultMarker } }]), usage: usage(600, 12) },
    { ...say("summary.md lists the three todo items and the check passes."), usage: usage(650, 16) },
  ];
}

export function seedWorkspace(root: string): void {
  mkdirSync(join(root, "notes"), { recursive: true });
  writeFileSync(join(root, "notes", "todo.txt"), "ship the journal\nwrite the tests\nrun the demo\n");
}

function inside(root: string, path: string): string {
  const target = resolve(root, path);
  if (relative(root, target).startsWith("..")) throw new YokeError("TOOL_FAILED", `path ${JSON.stringify(path)} is outside the workspace`);
  return target;
}

function check(root: string): string {
  const file = join(root, "summary.md");
  return existsSync(file) && readFileSync(file, "utf8") === SUMMARY ? "PASS" : "FAIL";
}

/** The workspace's tools; `onEffect` hears each call that runs (the tool's name), to count effects across processes. */
export function workspaceTools(root: string, onEffect: (tool: string) => void = () => undefined) {
  return [
    defineTool({
      name: "read_file",
      description: "Read a UTF-8 text file of the workspace.",
      input: z.object({ path: z.string().min(1) }),
      sideEffect: "none",
      async execute({ path }) {
        onEffect("read_file");
        return readFileSync(inside(root, path), "utf8");
      },
    }),
    defineTool({
      name: "write_file",
      description: "Create or replace a UTF-8 text file of the workspace.",
      input: z.object({ path: z.string().min(1), content: z.string() }),
      sideEffect: "idempotent",
      async execute({ path, content }) {
        onEffect("write_file");
        const target = inside(root, path);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, content);
        return `wrote ${Buffer.byteLength(content)} bytes to ${path}`;
      },
    }),
    defineTool({
      name: "run_check",
      description: "Check that summary.md lists every item of notes/todo.txt. `note` is echoed back.",
      input: z.object({ note: z.string().optional() }),
      sideEffect: "none",
      async execute({ note }) {
        onEffect("run_check");
        return `${check(root)}${note ? ` ${note}` : ""}`;
      },
    }),
  ];
}

/** How far a journal's run already got: the responses it holds (the model is not asked again for them) and its last time. */
export async function progressOf(journal: JournalV1, tenantId = TENANT, runId = RUN_ID): Promise<{ answered: number; lastAt: number }> {
  let answered = 0;
  let lastAt = START;
  for await (const event of journal.read({ tenantId, runId })) {
    if (event.type === "model.responded") answered += 1;
    lastAt = event.at;
  }
  return { answered, lastAt };
}

export interface ScenarioOptions {
  readonly journal: JournalV1;
  readonly workspace: string;
  /** Responses already journaled: the script starts after them. */
  readonly answered?: number;
  /** The clock starts after this. */
  readonly lastAt?: number;
  readonly marker?: string;
  readonly steps?: ScriptedStep[];
  readonly maxTurns?: number;
  /** Hears each tool call that runs. */
  readonly onEffect?: (tool: string) => void;
  /** The harness's logger (a worker hands one to its factory). */
  readonly logger?: Logger;
}

/** The scenario's harness on `journal`. */
export function scenarioHarness(options: ScenarioOptions) {
  const lastAt = options.lastAt ?? START;
  const clock = steppingClock(lastAt + 1, 1);
  const steps = options.steps ?? agentScript(options.marker);
  const model = createScriptedModel(steps.slice(options.answered ?? 0));
  const harness = createHarness({
    journal: options.journal,
    provider: model,
    tools: workspaceTools(options.workspace, options.onEffect),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    tenantId: TENANT,
    clock,
    ids: ulidIdSource({ clock, random: seeded(lastAt) }),
    systemPrompt: "You are a careful assistant. Use the tools to change files; say when you are done.",
    maxTurns: options.maxTurns ?? 8,
    checkCompletion: async () => (check(options.workspace) === "PASS" ? { passed: true } : { passed: false, reason: "summary.md is not right" }),
    budget: {
      limits: { turns: options.maxTurns ?? 8, tokens: 50_000_000, spend: 2_000_000_000, tool_ops: 100_000, wall_time: 100_000_000 },
      pricing: PRICES,
      outputReserve: 2_048,
    },
  });
  return { harness, model };
}

function seeded(seed: number): () => number {
  let state = seed % 2147483647 || 1;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}
