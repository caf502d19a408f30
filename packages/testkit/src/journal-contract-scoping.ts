import { GENESIS_HASH } from "@yoke/protocol";
import { expect } from "vitest";
import { describe, it } from "./contract-recorder.js";
import { eventDraft, runStartedDraft } from "./event-drafts.js";
import { collect, expectYokeError, scopeOf, type StoreContext } from "./journal-contract-support.js";

export function describeJournalScoping(context: StoreContext): void {
  describe("tenants and runs", () => {
    it("keeps one run id under two tenants as two runs", async () => {
      const a = scopeOf("run_shared", "tenant_a");
      const b = scopeOf("run_shared", "tenant_b");
      const fromA = await context.journal.append(a, 0, [runStartedDraft({ data: { task: "task of a" } })]);
      await context.journal.append(a, 1, [eventDraft("test.noted", { tenant: "a" })]);
      // Tenant B's seq 0 is free although tenant A's run of the same id has events.
      const fromB = await context.journal.append(b, 0, [runStartedDraft({ data: { task: "task of b" } })]);
      expect(fromB.headHash).not.toBe(fromA.headHash);
      expect((await collect(context.journal.read(b))).map((event) => [event.tenantId, event.data.task])).toEqual([["tenant_b", "task of b"]]);
      expect(await context.journal.head(b)).toEqual({ length: 1, hash: fromB.headHash });
      expect(await context.journal.verify(b)).toMatchObject({ ok: true, events: 1, headHash: fromB.headHash });
      expect((await context.journal.head(a))?.length).toBe(2);
      await expectYokeError(context.journal.append(b, 2, [eventDraft("test.noted")]), "JOURNAL_CONFLICT");
    });

    it("never shows one tenant's run to another", async () => {
      const a = scopeOf("run_private", "tenant_a");
      const b = scopeOf("run_private", "tenant_b");
      await context.journal.append(a, 0, [runStartedDraft(), eventDraft("test.noted")]);
      expect(await context.journal.head(b)).toBeNull();
      expect(await collect(context.journal.read(b))).toEqual([]);
      expect(await collect(context.journal.read(b, { fromSeq: 1 }))).toEqual([]);
      expect(await context.journal.verify(b)).toMatchObject({ ok: true, events: 0, headHash: GENESIS_HASH });
      expect(await collect(context.journal.listRuns("tenant_b"))).toEqual([]);
      await expectYokeError(context.journal.append(b, 2, [eventDraft("test.noted")]), "JOURNAL_CONFLICT");
    });

    it("compares tenant and run ids exactly", async () => {
      const scopes = [
        scopeOf("r", "t"),
        scopeOf("R", "t"),
        scopeOf("r ", "t"),
        scopeOf("r\u0000x", "t"),
        scopeOf("x", "t\u0000r"),
        scopeOf("r", "t\u0000"),
        scopeOf("é", "t"),
        scopeOf("e\u0301", "t"),
        scopeOf("", "t"),
        scopeOf("r", ""),
      ];
      for (const [index, scope] of scopes.entries()) {
        await context.journal.append(scope, 0, [runStartedDraft({ data: { task: `task ${index}` } })]);
      }
      for (const [index, scope] of scopes.entries()) {
        const events = await collect(context.journal.read(scope));
        expect(events.map((event) => [event.tenantId, event.runId, event.data.task])).toEqual([[scope.tenantId, scope.runId, `task ${index}`]]);
      }
      const runIds = (await collect(context.journal.listRuns("t"))).map((run) => run.runId);
      expect(runIds).toEqual(["", "R", "e\u0301", "r", "r\u0000x", "r ", "é"]);
    });

    it("answers for an id with a lone surrogate never with the run that has U+FFFD in its place", async () => {
      // A store that encodes ids as UTF-8 may turn a lone surrogate into U+FFFD on the way in.
      const stored = scopeOf("run_\uFFFD", "tenant_\uFFFD");
      await context.journal.append(stored, 0, [runStartedDraft()]);
      for (const lookalike of [scopeOf("run_\uD800", "tenant_\uFFFD"), scopeOf("run_\uFFFD", "tenant_\uDC00")]) {
        expect(await context.journal.head(lookalike)).toBeNull();
        expect(await collect(context.journal.read(lookalike))).toEqual([]);
        expect(await context.journal.verify(lookalike)).toMatchObject({ ok: true, events: 0, headHash: GENESIS_HASH });
      }
      expect(await collect(context.journal.listRuns("tenant_\uDC00"))).toEqual([]);
      expect((await collect(context.journal.listRuns("tenant_\uFFFD"))).map((run) => run.runId)).toEqual(["run_\uFFFD"]);
    });

    it("lists a tenant's runs in run id order with length and first and last times", async () => {
      const plan: Array<[string, number[]]> = [
        ["run_c", [30, 31]],
        ["run_a", [50, 10, 70]],
        ["run_b", [20]],
      ];
      for (const [runId, times] of plan) {
        const [first, ...rest] = times as [number, ...number[]];
        const scope = scopeOf(runId);
        await context.journal.append(scope, 0, [runStartedDraft({ at: first })]);
        if (rest.length > 0) {
          await context.journal.append(
            scope,
            1,
            rest.map((at) => eventDraft("test.noted", {}, { at })),
          );
        }
      }
      await context.journal.append(scopeOf("run_other", "tenant_z"), 0, [runStartedDraft()]);
      expect(await collect(context.journal.listRuns("tenant_a"))).toEqual([
        { tenantId: "tenant_a", runId: "run_a", length: 3, firstAt: 50, lastAt: 70 },
        { tenantId: "tenant_a", runId: "run_b", length: 1, firstAt: 20, lastAt: 20 },
        { tenantId: "tenant_a", runId: "run_c", length: 2, firstAt: 30, lastAt: 31 },
      ]);
      expect(await collect(context.journal.listRuns("tenant_nobody"))).toEqual([]);
    });

    it("lists many runs, appended out of id order, in run id order", async () => {
      const runIds = Array.from({ length: 300 }, (_, index) => `run_${String(index).padStart(4, "0")}`);
      // A scattered order (index * 119 mod 300 visits every index), not a reversal: a store that
      // sorts in memory must order by every comparison, not just undo one descending run.
      for (const index of runIds.keys()) await context.journal.append(scopeOf(runIds[(index * 119) % 300]!), 0, [runStartedDraft()]);
      const listed = await collect(context.journal.listRuns("tenant_a"));
      expect(listed.map((run) => run.runId)).toEqual(runIds);
    });
  });

  describe("close", () => {
    it("refuses every call after close with JOURNAL_CLOSED, and closing twice is fine", async () => {
      const scope = scopeOf("run_1");
      await context.journal.append(scope, 0, [runStartedDraft()]);
      await context.journal.close();
      await expectYokeError(context.journal.append(scope, 1, [eventDraft("test.noted")]), "JOURNAL_CLOSED");
      await expectYokeError(collect(context.journal.read(scope)), "JOURNAL_CLOSED");
      await expectYokeError(context.journal.head(scope), "JOURNAL_CLOSED");
      await expectYokeError(context.journal.verify(scope), "JOURNAL_CLOSED");
      await expectYokeError(collect(context.journal.listRuns("tenant_a")), "JOURNAL_CLOSED");
      // Also for ids no run can have (lone surrogates): closed comes first.
      const unheld = scopeOf("run_\uD800", "tenant_\uDC00");
      await expectYokeError(context.journal.append(unheld, 0, [runStartedDraft()]), "JOURNAL_CLOSED");
      await expectYokeError(collect(context.journal.read(unheld)), "JOURNAL_CLOSED");
      await expectYokeError(context.journal.head(unheld), "JOURNAL_CLOSED");
      await expectYokeError(context.journal.verify(unheld), "JOURNAL_CLOSED");
      await expectYokeError(collect(context.journal.listRuns(unheld.tenantId)), "JOURNAL_CLOSED");
      await context.journal.close();
    });
  });
}
