// A stand-in for a test runner that dies: starts one worker (TypeScript, through
// register-ts.mjs) with its stdout and stderr inherited, sends it "go", prints its pid and
// then waits to be killed.
import { spawn } from "node:child_process";
import { join } from "node:path";

const [script, ...args] = process.argv.slice(2);
const child = spawn(process.execPath, ["--no-warnings", "--import", join(import.meta.dirname, "register-ts.mjs"), join(import.meta.dirname, script), ...args], {
  stdio: ["pipe", "inherit", "inherit"],
});
child.stdin.write("go\n");
process.stdout.write(`worker ${child.pid}\n`);
setInterval(() => undefined, 1 << 30);
