// Drives one owner-scenario process over stdio, with the testkit's scenario driver (waits are
// on the child's output, never on the clock).
import { fileURLToPath } from "node:url";
import { ScriptProcess } from "@yoke/testkit/crash";

const script = fileURLToPath(new URL("./owner-scenario.ts", import.meta.url));

export type Mode = "start" | "resume" | "start-or-resume";

/** An owner-scenario process over the SQLite file in `dir`. */
export class ScenarioProcess extends ScriptProcess {
  constructor(name: string, dir: string, mode: Mode) {
    super(name, script, ["--dir", dir, "--mode", mode], "yoke-run-ownership-compile-cache");
  }
}
