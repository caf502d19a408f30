// What keeps a test's worker process from outliving its test: a worker that spins in a claim
// loop because a change broke the store must not survive a killed test runner as an orphan at
// full CPU. Call `waitForGo()` instead of reading stdin by hand.
import { once } from "node:events";

/** Default deadline of a worker: far past any passing test, so it only ends a hung one. */
const DEADLINE_MS = 60_000;

function die(why: string): never {
  process.stderr.write(`worker ${process.pid} exiting: ${why}\n`);
  process.exit(70);
}

/**
 * Waits for the line that starts the worker, then watches for the end of its runner: stdin
 * closing (the parent died, or gave up on it), the parent process changing (re-parented to
 * init), or the deadline. Each ends the process with status 70 and a line on stderr. None
 * of them keeps the process alive once its work is done.
 */
export async function waitForGo(deadlineMs = DEADLINE_MS): Promise<void> {
  const parent = process.ppid;
  setTimeout(() => die(`deadline of ${deadlineMs} ms passed`), deadlineMs).unref();
  setInterval(() => {
    if (process.ppid !== parent) die("its parent process is gone");
  }, 200).unref();
  await once(process.stdin, "data");
  // Stay in flowing mode so the end of stdin is seen; unref so a finished worker still exits.
  process.stdin.on("data", () => undefined);
  process.stdin.on("end", () => die("stdin closed: the test that started it is gone"));
  (process.stdin as { unref?: () => void }).unref?.();
}
