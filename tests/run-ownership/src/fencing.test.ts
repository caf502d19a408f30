// Fencing reaches the backend at every step, under real processes: an owner paused (SIGSTOP)
// with its charge dispatched but not yet applied loses the run to a second process, which waits
// out the lease, reconciles the charge (not applied) presenting its newer fencing token, and
// charges again. When the first owner wakes (SIGCONT) and its request lands, the backend, which
// checks tokens, refuses it: exactly one effect, the stale writer refused.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSqliteJournal } from "@yoke/journal";
import { createFencedBackend } from "@yoke/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { ScriptProcess } from "@yoke/testkit/crash";

const script = fileURLToPath(new URL("./fenced-scenario.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "yoke-fencing-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const TTL_MS = 1_500;

const owner = (name: string, dir: string, mode: "start" | "resume") =>
  new ScriptProcess(name, script, ["--dir", dir, "--mode", mode, "--ttl", String(TTL_MS)], "yoke-fencing-compile-cache");

describe("a paused owner woken after another took over and reconciled", () => {
  // When the stale request lands: between the new owner's reconciliation and its retry's
  // effect (only the reconciliation's token can refuse it), or after the retry applied.
  for (const lands of ["before", "after"] as const) {
    it(`is refused by a backend that checks fencing tokens, landing ${lands} the new owner's retry: one charge in all`, async () => {
      const dir = join(root, `sigstop-${lands}`);
      const first = owner("first", dir, "start");
      expect(await first.line("READY"), first.transcript()).toBe("READY");
      first.send("go");
      const started = await first.line("TOOL_STARTED");
      expect(started, first.transcript()).toMatch(/^TOOL_STARTED \S+ \d+$/);
      const firstToken = Number(started.split(" ")[2]);
      first.signal("SIGSTOP");

      const second = owner("second", dir, "resume");
      let reconciled = "";
      let secondToken = 0;
      try {
        expect(await second.line("READY"), second.transcript()).toBe("READY");
        second.send("go");
        // The first owner is alive (stopped), so the second waits out its lease, then reconciles and retries.
        const retried = await second.settled("TOOL_STARTED", "DONE", "FAILED");
        expect(retried, second.transcript()).toMatch(/^TOOL_STARTED /);
        secondToken = Number(retried.split(" ")[2]);
        expect(secondToken).toBeGreaterThan(firstToken);
        reconciled = await second.line("RECONCILED");
        if (lands === "after") {
          second.send("finish");
          expect(await second.settled("DONE", "FAILED"), second.transcript()).toMatch(/^DONE /);
        }
      } finally {
        first.signal("SIGCONT");
      }
      // The first owner's request lands now, after the reconciliation: refused.
      first.send("finish");
      await first.ended;
      second.send("finish");
      expect((await second.ended).code, second.transcript()).toBe(0);
      const transcripts = `${first.transcript()}\n${second.transcript()}`;
      expect(await second.line("DONE"), transcripts).toBe('DONE {"outcome":"completed"}');

      const entries = createFencedBackend(join(dir, "backend.jsonl")).entries();
      const applies = entries.filter((entry) => entry.op === "apply");
      expect(
        applies.filter((entry) => entry.accepted).map((entry) => entry.token),
        `${transcripts}\n${JSON.stringify(entries)}`,
      ).toEqual([expect.any(Number)]);
      expect(applies.filter((entry) => !entry.accepted).map((entry) => entry.token)).toEqual([firstToken]);
      expect(first.has("FENCED"), transcripts).toBe(true);
      // The reconciliation presented the second owner's token: that is what raised the fence.
      expect(reconciled, transcripts).toBe(`RECONCILED ${secondToken} false`);

      const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite"), readOnly: true });
      try {
        expect(await journal.verify({ tenantId: "tenant_owner", runId: "run_fenced" })).toMatchObject({ ok: true });
      } finally {
        await journal.close();
      }
    }, 120_000);
  }
});
