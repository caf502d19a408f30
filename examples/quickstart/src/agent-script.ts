// What the scripted model answers, turn by turn. A real model would decide this; the demo
// fixes it so every run (and every crash and resume) is reproducible.
import { callTools, say, type ScriptedStep } from "@yoke/testkit";
import { EXPECTED_SUMMARY } from "./workspace-tools.ts";

export function agentScript(): ScriptedStep[] {
  return [
    { ...callTools([{ name: "read_file", args: { path: "notes/todo.txt" } }]), usage: usage(350, 18) },
    // A malformed call: the runtime returns a validation error to the model, the run goes on.
    { ...callTools([{ name: "write_file", args: { path: "summary.md" } }]), usage: usage(420, 22) },
    { ...callTools([{ name: "write_file", args: { path: "summary.md", content: EXPECTED_SUMMARY } }]), usage: usage(500, 64) },
    { ...callTools([{ name: "run_check", args: {} }]), usage: usage(600, 12) },
    { ...say("summary.md lists the three todo items and the check passes."), usage: usage(650, 16) },
  ];
}

/** What a provider would report for a call: the budget charges it (and prices it) from this. */
function usage(inputTokens: number, outputTokens: number) {
  return { inputTokens, outputTokens };
}
