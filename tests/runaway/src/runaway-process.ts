// Drives one runaway-scenario process over stdio, with the testkit's scenario driver (waits
// are on the child's output, never on the clock).
import { fileURLToPath } from "node:url";
import { ScriptProcess } from "@yoke/testkit/crash";

const script = fileURLToPath(new URL("./runaway-scenario.ts", import.meta.url));

/** A runaway-scenario process over the SQLite file in `dir`. */
export class RunawayProcess extends ScriptProcess {
  constructor(name: string, dir: string, mode: "start" | "resume", toolOps: number, holdAt?: number) {
    super(
      name,
      script,
      ["--dir", dir, "--mode", mode, "--tool-ops", String(toolOps), ...(holdAt === undefined ? [] : ["--hold-at", String(holdAt)])],
      "yoke-runaway-compile-cache",
    );
  }
}
