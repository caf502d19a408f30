// The demo agent's tools: they act on a workspace folder and nothing else.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { z } from "zod";
import { defineTool } from "@yoke/runtime";
import { YokeError } from "@yoke/protocol";

export const EXPECTED_SUMMARY = "# Summary\n\n- ship the journal\n- write the tests\n- run the demo\n";

export function seedWorkspace(root: string): void {
  mkdirSync(join(root, "notes"), { recursive: true });
  writeFileSync(join(root, "notes", "todo.txt"), "ship the journal\nwrite the tests\nrun the demo\n");
}

/** Resolves a model-given path inside the workspace; anything that escapes it is refused. */
function inside(root: string, path: string): string {
  const target = resolve(root, path);
  const rel = relative(root, target);
  if (rel.startsWith("..") || resolve(root, rel) !== target) {
    throw new YokeError("TOOL_FAILED", `path ${JSON.stringify(path)} is outside the workspace`);
  }
  return target;
}

export function checkSummary(root: string): { passed: true } | { passed: false; reason: string } {
  const file = join(root, "summary.md");
  if (!existsSync(file)) return { passed: false, reason: "summary.md does not exist" };
  const text = readFileSync(file, "utf8");
  return text === EXPECTED_SUMMARY ? { passed: true } : { passed: false, reason: "summary.md does not list every todo item" };
}

export function workspaceTools(root: string) {
  return [
    defineTool({
      name: "read_file",
      description: "Read a UTF-8 text file of the workspace.",
      input: z.object({ path: z.string().min(1) }),
      sideEffect: "none",
      async execute({ path }) {
        return readFileSync(inside(root, path), "utf8");
      },
    }),
    defineTool({
      name: "write_file",
      description: "Create or replace a UTF-8 text file of the workspace.",
      input: z.object({ path: z.string().min(1), content: z.string() }),
      // Writing the same content twice leaves the same file: safe to redo after a crash.
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
