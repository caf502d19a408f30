// A live owner is never fenced out by a namespace, and a dead one is known dead by what
// survives namespaces and restarts (boot id, PID namespace, process start time), under real
// processes and real PID namespaces (`unshare --pid --fork --mount-proc`, which needs root; the
// suite is skipped, saying so, where it is unavailable).
//
// - A holder in another PID namespace of this host, whose pid does not exist in the test's
//   namespace, is alive: a resumer here is refused (RUN_LEASE_HELD), never takes over.
// - A process that gets the pid of a holder killed with the lease live (as PID 1 of a restarted
//   container does), in the same namespace on the same boot, knows the holder is dead (another
//   start time) and takes over at once instead of waiting out the lease.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ScriptProcess } from "@yoke/testkit/crash";

const holder = fileURLToPath(new URL("./lease-holder.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "yoke-owner-identity-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const unshareWorks = (() => {
  const probe = spawnSync("unshare", ["--pid", "--fork", "--mount-proc", "true"], { stdio: "ignore" });
  return probe.status === 0;
})();

/** Runs `holder` once per `runs` entry, one after the other, in one fresh PID namespace, each as pid `pid` there. */
function inNamespace(pid: number, ...runs: string[][]): { file: string; args: string[] } {
  const setPid = `echo ${pid - 1} > /proc/sys/kernel/ns_last_pid`;
  const script = runs.map((args) => `${setPid}; ${quote(process.execPath)} ${[holder, ...args].map(quote).join(" ")}`).join("; ");
  // The trailing `true` keeps bash from exec-ing the last command in its own place (as pid 1).
  return { file: "unshare", args: ["--pid", "--fork", "--mount-proc", "--kill-child", "bash", "-c", `${script}; true`] };
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** A pid nobody uses in this namespace (high, so nothing is likely to take it during the test). */
function freePid(): number {
  const max = Number(execFileSync("cat", ["/proc/sys/kernel/pid_max"], { encoding: "utf8" }));
  for (let pid = max - 2_000; pid > 1_000; pid -= 7) if (!existsSync(`/proc/${pid}`)) return pid;
  throw new Error("no free pid");
}

describe.skipIf(!unshareWorks)("lease owners across PID namespaces and restarts (real namespaces)", () => {
  it("refuses a resumer here while the holder lives in another PID namespace under a pid absent here", async () => {
    const db = join(root, "namespace.sqlite");
    const pid = freePid();
    const owner = new ScriptProcess("holder", holder, [], "yoke-owner-identity-compile-cache", inNamespace(pid, ["--db", db, "--mode", "hold"]));
    try {
      const held = await owner.line("HELD");
      expect(held, owner.transcript()).toBe(`HELD 1 ${pid}`);
      expect(existsSync(`/proc/${pid}`), `pid ${pid} exists in the test's namespace`).toBe(false);
      const resumer = new ScriptProcess("resumer", holder, ["--db", db, "--mode", "take"], "yoke-owner-identity-compile-cache");
      await resumer.ended;
      expect(await resumer.line("REFUSED"), resumer.transcript()).toMatch(/^REFUSED RUN_LEASE_HELD /);
    } finally {
      owner.closeInput();
      await owner.ended;
    }
  }, 60_000);

  it("takes over at once from a holder killed with its lease live, once its pid belongs to the new process (same namespace, same boot)", async () => {
    const db = join(root, "restart.sqlite");
    const run = new ScriptProcess(
      "restart",
      holder,
      [],
      "yoke-owner-identity-compile-cache",
      inNamespace(4_242, ["--db", db, "--mode", "die"], ["--db", db, "--mode", "take"]),
    );
    await run.ended;
    expect(run.lines[0], run.transcript()).toBe("HELD 1 4242");
    expect(run.lines[1], run.transcript()).toBe("TOOK 2 4242");
  }, 60_000);
});
