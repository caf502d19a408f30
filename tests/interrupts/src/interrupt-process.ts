// Drives one interrupt-scenario process over stdio, with the testkit's scenario driver (waits
// are on the child's output, never on the clock).
import { fileURLToPath } from "node:url";
import { ScriptProcess } from "@yoke/testkit/crash";

const script = fileURLToPath(new URL("./interrupt-scenario.ts", import.meta.url));

export type Mode = "start" | "resume" | "interrupt-input" | "interrupt-cancel";

/**
 * An interrupt-scenario process over the SQLite file in `dir`; `verifier`: none, or a gate
 * verifier (replay-safe or not); `model`: scripted answers, or calls held until cancelled.
 */
export class ScenarioProcess extends ScriptProcess {
  constructor(name: string, dir: string, mode: Mode, verifier: "none" | "safe" | "unsafe" = "none", model: "script" | "hang" = "script") {
    super(name, script, ["--dir", dir, "--mode", mode, "--verifier", verifier, "--model", model], "yoke-interrupts-compile-cache");
  }
}
