// Drives one approval-scenario process over stdio, with the testkit's scenario driver (waits
// are on the child's output, never on the clock).
import { fileURLToPath } from "node:url";
import { ScriptProcess } from "@yoke/testkit/crash";

const script = fileURLToPath(new URL("./approval-scenario.ts", import.meta.url));

export type Mode = "start" | "approve-resume" | "resume";

/** An approval-scenario process over the SQLite file in `dir`. */
export class ScenarioProcess extends ScriptProcess {
  constructor(name: string, dir: string, mode: Mode) {
    super(name, script, ["--dir", dir, "--mode", mode], "yoke-approvals-compile-cache");
  }
}
