// Drives one subagent-scenario process over stdio, with run-ownership's process driver.
import { fileURLToPath } from "node:url";
import { ScriptProcess } from "../../run-ownership/src/scenario-process.ts";

const script = fileURLToPath(new URL("./subagent-scenario.ts", import.meta.url));

/** A subagent-scenario process over the SQLite file in `dir`. */
export class SubagentProcess extends ScriptProcess {
  constructor(name: string, dir: string, mode: "start" | "resume") {
    super(name, script, ["--dir", dir, "--mode", mode], "yoke-runaway-compile-cache");
  }
}
