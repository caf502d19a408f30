// What the scripted model answers, turn by turn. A real model would decide this; the demo
// fixes it so every run (and every crash and resume) is reproducible.
import { callTools, say, type ScriptedStep } from "@yoke/testkit";
import { EXPECTED_SUMMARY } from "./workspace-tools.ts";

export function agentScript(): ScriptedStep[] {
  return [
    callTools([{ name: "read_file", args: { path: "notes/todo.txt" } }]),
    // A malformed call: the runtime returns a validation error to the model, the run goes on.
    callTools([{ name: "write_file", args: { path: "summary.md" } }]),
    callTools([{ name: "write_file", args: { path: "summary.md", content: EXPECTED_SUMMARY } }]),
    callTools([{ name: "run_check", args: {} }]),
    say("summary.md lists the three todo items and the check passes."),
  ];
}
