// The quick-start demo (examples/quickstart) as a golden scenario: its scripted model, its
// workspace tools and completion check, its budget, on the corpus's still clock and sequential
// ids. Copied in spirit, as the other scenarios' tools are (a suite never imports an example's
// code): a change of the demo that changes what it journals belongs here too.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { YokeError, type PricingTable } from "@yoke/protocol";
import { defineTool } from "@yoke/runtime";
import { callTools, say } from "@yoke/testkit";
import { z } from "zod";
import type { Scenario } from "./scenario.js";
import { startWith } from "./scenario-tools.js";
import { scratchDirectory } from "./scratch.js";

const TASK = "Summarize notes/todo.txt into summary.md as a markdown list, then run the check.";
const EXPECTED_SUMMARY = "# Summary\n\n- ship the journal\n- write the tests\n- run the demo\n";
const DEMO_PRICES: PricingTable = {
  version: 1,
  id: "demo-prices",
  currency: "USD",
  models: [{ provider: "scripted", model: "scripted-*", input: 3_000_000, output: 15_000_000 }],
};

function seededWorkspace(): string {
  const root = scratchDirectory("workspace");
  mkdirSync(join(root, "notes"), { recursive: true });
  writeFileSync(join(root, "notes", "todo.txt"), "ship the journal\nwrite the tests\nrun the demo\n");
  return root;
}

function inside(root: string, path: string): string {
  const target = resolve(root, path);
  const rel = relative(root, target);
  if (rel.startsWith("..") || resolve(root, rel) !== target) throw new YokeError("TOOL_FAILED", `path ${JSON.stringify(path)} is outside the workspace`);
  return target;
}

function checkSummary(root: string): { passed: true } | { passed: false; reason: string } {
  const file = join(root, "summary.md");
  if (!existsSync(file)) return { passed: false, reason: "summary.md does not exist" };
  return readFileSync(file, "utf8") === EXPECTED_SUMMARY ? { passed: true } : { passed: false, reason: "summary.md does not list every todo item" };
}

function workspaceTools(root: string) {
  return [
    defineTool({
      name: "read_file",
      description: "Read a UTF-8 text file of the workspace.",
      input: z.object({ path: z.string().min(1) }),
      sideEffect: "none",
      execute: async ({ path }) => readFileSync(inside(root, path), "utf8"),
    }),
    defineTool({
      name: "write_file",
      description: "Create or replace a UTF-8 text file of the workspace.",
      input: z.object({ path: z.string().min(1), content: z.string() }),
      sideEffect: "idempotent",
      async execute({ path, content }) {
        const target = inside(root, path);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, content);
        return `wrote ${Buffer.byteLength(content)} bytes to ${path}`;
      },
    }),
    defineTool({
      name: "run_check",
      description: "Check that summary.md lists every item of notes/todo.txt.",
      input: z.object({}),
      sideEffect: "none",
      async execute() {
        const verdict = checkSummary(root);
        return verdict.passed ? "PASS" : `FAIL: ${verdict.reason}`;
      },
    }),
  ];
}

const usage = (inputTokens: number, outputTokens: number) => ({ usage: { inputTokens, outputTokens } });

export const DEMO_SCENARIOS: readonly Scenario[] = [
  {
    name: "quickstart-demo",
    about: "the quick-start demo: read, a malformed write answered with a validation error, the write, the check, verified_success within budget",
    world: () => {
      const workspace = seededWorkspace();
      return {
        script: {
          queues: [
            [
              { ...callTools([{ name: "read_file", args: { path: "notes/todo.txt" } }]), ...usage(350, 18) },
              { ...callTools([{ name: "write_file", args: { path: "summary.md" } }]), ...usage(420, 22) },
              { ...callTools([{ name: "write_file", args: { path: "summary.md", content: EXPECTED_SUMMARY } }]), ...usage(500, 64) },
              { ...callTools([{ name: "run_check", args: {} }]), ...usage(600, 12) },
              { ...say("summary.md lists the three todo items and the check passes."), ...usage(650, 16) },
            ],
          ],
        },
        options: {
          tools: workspaceTools(workspace),
          systemPrompt: "You are a careful assistant. Use the tools to change files; say when you are done.",
          maxTurns: 8,
          checkCompletion: async () => checkSummary(workspace),
          budget: { limits: { turns: 8, tokens: 200_000, spend: 2_000_000, tool_ops: 20, wall_time: 600_000 }, pricing: DEMO_PRICES, outputReserve: 2_048 },
        },
      };
    },
    drive: startWith(TASK),
    sqlite: true,
  },
];
