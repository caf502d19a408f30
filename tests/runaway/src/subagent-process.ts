// Drives one subagent-scenario process over stdio, with the testkit's scenario driver.
import { fileURLToPath } from "node:url";
import { ScriptProcess } from "@yoke/testkit/crash";

const script = fileURLToPath(new URL("./subagent-scenario.ts", import.meta.url));

/** A subagent-scenario process over the SQLite file in `dir`. */
export class SubagentProcess extends ScriptProcess {
  constructor(name: string, dir: string, mode: "start" | "resume") {
    super(name, script, ["--dir", dir, "--mode", mode], "yoke-runaway-compile-cache");
  }
}
