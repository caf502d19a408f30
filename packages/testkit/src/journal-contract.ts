import { GENESIS_HASH, YokeError, type EventDraft, type ReadOptions } from "@yoke/protocol";
import { expect } from "vitest";
import { describe, it, recordContractTests, type ContractTests } from "./contract-recorder.js";
import { eventDraft, runStartedDraft } from "./event-drafts.js";
import { describeJournalModel } from "./journal-contract-model.js";
import { describeJournalProperties } from "./journal-contract-properties.js";
import { describeJournalScoping } from "./journal-contract-scoping.js";
import { collect, expectChain, expectYokeError, scopeOf, useFreshStore, type JournalStoreFactory, type StoreContext } from "./journal-contract-support.js";

export interface JournalContractOptions {
  /** Iterations per fast-check property. Default 50. */
  readonly numRuns?: number;
  /**
   * The hash the store gives a fixed `run.started` event (seq 0 of `run_golden`, tenant
   * `tenant_golden`). Default: the unkeyed SHA-256 hash every unkeyed store must give. A keyed
   * store passes the `hmac-sha256:<keyId>:<hex>` hash its test key gives, pinning its format.
   */
  readonly goldenRunStartedHash?: string;
  /** The chain form `verify` must report when the store reports one. Default `"sha256"`. */
  readonly chain?: "sha256" | "hmac-sha256";
}

/**
 * Registers the `JournalV1` contract as vitest tests: append/read round trips, the hash
 * chain, optimistic concurrency, atomic batches, tenant isolation, `listRuns`, `verify`,
 * `close`, fast-check properties (random batches round-trip; racing writers get exactly
 * one winner per sequence number; `verify` holds after any mix of appends and conflicts),
 * and a model-based test of random command sequences against a reference model.
 * `makeStore` is called before every test and must return an empty store.
 *
 * @example
 * ```ts
 * // my-journal.test.ts
 * import { describeJournalContract } from "@yoke/testkit/contracts";
 * describeJournalContract("my store", async () => {
 *   const journal = await createMyJournal({ url: await freshDatabase() });
 *   return { journal, cleanup: () => dropDatabase() };
 * });
 * ```
 */
export function describeJournalContract(name: string, makeStore: JournalStoreFactory, options: JournalContractOptions = {}): void {
  describe(`JournalV1 contract: ${name}`, () => {
    const context = useFreshStore(makeStore);
    describeAppendAndRead(context, options);
    describeRejectedAppends(context);
    describeRefusedMidBatch(context);
    describeJournalScoping(context);
    describeJournalProperties(context, { numRuns: options.numRuns ?? 50 });
    describeJournalModel(context, { numRuns: options.numRuns ?? 50 });
  });
}

/**
 * The tests `describeJournalContract` registers, as data (titles are the describe path
 * below the suite). Register them with a literal `describe` and `it.for` in the store's test
 * file, and `vitest list` (which reads test files statically) shows the contract suite
 * instead of "No test suite found".
 *
 * @example
 * ```ts
 * const contract = journalContractTests("my store", async () => ({ journal: await createMyJournal() }));
 * describe("JournalV1 contract: my store", () => {
 *   it.for(contract.tests)("$title", (test) => test.run());
 * });
 * ```
 */
export function journalContractTests(name: string, makeStore: JournalStoreFactory, options: JournalContractOptions = {}): ContractTests {
  return recordContractTests(() => describeJournalContract(name, makeStore, options));
}

const notes = (from: number, count: number): EventDraft[] =>
  Array.from({ length: count }, (_, index) => eventDraft("test.noted", { index: from + index }, { at: 1000 + from + index }));

function describeAppendAndRead(context: StoreContext, options: JournalContractOptions): void {
  describe("append and read", () => {
    it("declares specification v1 and its capabilities", () => {
      expect(context.journal.specificationVersion).toBe("v1");
      expect(typeof context.journal.capabilities.durable).toBe("boolean");
      expect(typeof context.journal.capabilities.multiProcess).toBe("boolean");
    });

    it("stores a batch with envelopes, sequence numbers and an unbroken hash chain", async () => {
      const scope = scopeOf("run_1");
      const drafts = [runStartedDraft({ at: 10, causationId: "cause_0" }), ...notes(1, 2)];
      const result = await context.journal.append(scope, 0, drafts);
      expect(result.lastSeq).toBe(2);
      expect(result.headHash).toBe(result.events.at(-1)?.hash);
      expectChain(scope, result.events, drafts);
      expect(result.events[0]?.prevHash).toBe(GENESIS_HASH);
      expect(new Set(result.events.map((event) => event.hash)).size).toBe(3);
    });

    it("reads back exactly what append stored, across appends", async () => {
      const scope = scopeOf("run_1");
      const first = await context.journal.append(scope, 0, [runStartedDraft()]);
      const second = await context.journal.append(scope, 1, notes(1, 3));
      expect(second.events[0]?.prevHash).toBe(first.headHash);
      const events = await collect(context.journal.read(scope));
      expect(events).toEqual([...first.events, ...second.events]);
      expectChain(scope, events, [runStartedDraft(), ...notes(1, 3)]);
    });

    it("gives a fixed event the hash the format defines", async () => {
      const scope = scopeOf("run_golden", "tenant_golden");
      const result = await context.journal.append(scope, 0, [GOLDEN_DRAFT]);
      expect(result.headHash).toBe(options.goldenRunStartedHash ?? GOLDEN_RUN_STARTED_HASH);
    });

    it("reports head: null for an unknown run, then its length and last hash", async () => {
      const scope = scopeOf("run_1");
      expect(await context.journal.head(scope)).toBeNull();
      const result = await context.journal.append(scope, 0, [runStartedDraft(), ...notes(1, 1)]);
      expect(await context.journal.head(scope)).toEqual({ length: 2, hash: result.headHash });
    });

    it("reads an unknown run as nothing and verifies it as empty", async () => {
      const scope = scopeOf("run_missing");
      expect(await collect(context.journal.read(scope))).toEqual([]);
      expect(await context.journal.verify(scope)).toMatchObject({ ok: true, events: 0, headHash: GENESIS_HASH });
    });

    it("reads the range [fromSeq, toSeq)", async () => {
      const scope = scopeOf("run_1");
      await context.journal.append(scope, 0, [runStartedDraft(), ...notes(1, 9)]);
      const seqs = async (fromSeq?: number, toSeq?: number) => (await collect(context.journal.read(scope, { fromSeq, toSeq }))).map((event) => event.seq);
      expect(await seqs(3, 7)).toEqual([3, 4, 5, 6]);
      expect(await seqs(8)).toEqual([8, 9]);
      expect(await seqs(undefined, 2)).toEqual([0, 1]);
      expect(await seqs(4, 4)).toEqual([]);
      expect(await seqs(10)).toEqual([]);
      expect(await seqs(25)).toEqual([]);
      expect(await seqs(0, 100)).toHaveLength(10);
    });

    it("refuses a read range that is not made of non-negative integers: CONFIG_INVALID naming the option and its value", async () => {
      const scope = scopeOf("run_1");
      await context.journal.append(scope, 0, [runStartedDraft(), ...notes(1, 2)]);
      const cases: Array<[ReadOptions, Record<string, number>]> = [
        [{ fromSeq: -1 }, { fromSeq: -1 }],
        [{ fromSeq: 0.5 }, { fromSeq: 0.5 }],
        [{ toSeq: -2 }, { toSeq: -2 }],
        [{ toSeq: Number.NaN }, { toSeq: Number.NaN }],
        [{ fromSeq: 1, toSeq: Number.POSITIVE_INFINITY }, { toSeq: Number.POSITIVE_INFINITY }],
      ];
      for (const [options, details] of cases) {
        const refused = await expectYokeError(collect(context.journal.read(scope, options)), "CONFIG_INVALID");
        expect(refused.details, JSON.stringify(options)).toEqual(details);
        expect(refused.message).toContain(Object.keys(details)[0]);
      }
      await expectYokeError(collect(context.journal.read(scopeOf("run_missing"), { fromSeq: -1 })), "CONFIG_INVALID");
    });

    it("streams a long run in order", async () => {
      const scope = scopeOf("run_long");
      await context.journal.append(scope, 0, [runStartedDraft(), ...notes(1, 299)]);
      await context.journal.append(scope, 300, notes(300, 300));
      let expected = 0;
      for await (const event of context.journal.read(scope)) expect(event.seq).toBe(expected++);
      expect(expected).toBe(600);
      expect(await context.journal.verify(scope)).toMatchObject({ ok: true, events: 600 });
    });

    it("verifies a run: ok, its length and the head hash", async () => {
      const scope = scopeOf("run_1");
      await context.journal.append(scope, 0, [runStartedDraft()]);
      const last = await context.journal.append(scope, 1, notes(1, 4));
      const verified = await context.journal.verify(scope);
      expect(verified).toMatchObject({ ok: true, events: 5, headHash: last.headHash });
      if (verified.ok && verified.chain !== undefined) expect(verified.chain).toBe(options.chain ?? "sha256");
      if (verified.ok && verified.keyIds !== undefined) {
        expect(verified.keyIds.length > 0).toBe((options.chain ?? "sha256") === "hmac-sha256");
      }
      expect((await context.journal.head(scope))?.hash).toBe(last.headHash);
    });

    it("keeps stored events apart from the objects it returns", async () => {
      const scope = scopeOf("run_1");
      const result = await context.journal.append(scope, 0, [runStartedDraft(), ...notes(1, 1)]);
      const before = structuredClone(result.events);
      const returned = result.events[1] as { data: Record<string, unknown>; at: number };
      try {
        returned.data.index = 99;
        returned.at = 5;
      } catch {
        // A store may freeze what it returns: that keeps the stored copy safe too.
      }
      expect(await collect(context.journal.read(scope))).toEqual(before);
      expect(await context.journal.verify(scope)).toMatchObject({ ok: true });
    });
  });
}

function describeRejectedAppends(context: StoreContext): void {
  describe("rejected appends write nothing", () => {
    it("requires run.started as the first event", async () => {
      const scope = scopeOf("run_1");
      await expectYokeError(context.journal.append(scope, 0, notes(0, 1)), "JOURNAL_INVALID_APPEND");
      expect(await context.journal.head(scope)).toBeNull();
    });

    it("refuses run.started after the first event", async () => {
      const scope = scopeOf("run_1");
      await context.journal.append(scope, 0, [runStartedDraft()]);
      await expectYokeError(context.journal.append(scope, 1, [runStartedDraft()]), "JOURNAL_INVALID_APPEND");
      await expectYokeError(context.journal.append(scope, 1, [...notes(1, 1), runStartedDraft()]), "JOURNAL_INVALID_APPEND");
      expect((await context.journal.head(scope))?.length).toBe(1);
    });

    it("refuses an empty batch", async () => {
      const scope = scopeOf("run_1");
      await expectYokeError(context.journal.append(scope, 0, []), "JOURNAL_INVALID_APPEND");
      expect(await context.journal.head(scope)).toBeNull();
      await context.journal.append(scope, 0, [runStartedDraft()]);
      await expectYokeError(context.journal.append(scope, 1, []), "JOURNAL_INVALID_APPEND");
      expect((await context.journal.head(scope))?.length).toBe(1);
    });

    const malformed: Array<[string, unknown]> = [
      ["a type that is not noun.verb", { type: "Not A Type", at: 0, data: {} }],
      ["a negative time", { type: "test.noted", at: -1, data: {} }],
      ["a fractional time", { type: "test.noted", at: 1.5, data: {} }],
      ["data that is an array", { type: "test.noted", at: 0, data: [1, 2] }],
      ["data that is not JSON", { type: "test.noted", at: 0, data: { value: Number.NaN } }],
      ["no data", { type: "test.noted", at: 0 }],
      ["a causationId that is not a string", { type: "test.noted", at: 0, causationId: 5, data: {} }],
    ];
    it.each(malformed)("refuses a batch containing %s, atomically", async (_label, draft) => {
      const scope = scopeOf("run_1");
      await context.journal.append(scope, 0, [runStartedDraft()]);
      const before = await context.journal.head(scope);
      await expectYokeError(context.journal.append(scope, 1, [...notes(1, 2), draft as EventDraft]), "JOURNAL_INVALID_APPEND");
      expect(await context.journal.head(scope)).toEqual(before);
      expect(await collect(context.journal.read(scope))).toHaveLength(1);
      const next = await context.journal.append(scope, 1, notes(1, 2));
      expect(next.events.map((event) => event.seq)).toEqual([1, 2]);
    });

    it("rejects a stale or future expectedSeq with JOURNAL_CONFLICT", async () => {
      const scope = scopeOf("run_1");
      await context.journal.append(scope, 0, [runStartedDraft(), ...notes(1, 2)]);
      const before = await collect(context.journal.read(scope));
      const stale = await expectYokeError(context.journal.append(scope, 1, notes(1, 1)), "JOURNAL_CONFLICT");
      expect(stale.details).toMatchObject({ expectedSeq: 1, actualSeq: 3 });
      expect(stale.retryable).toBe(true);
      await expectYokeError(context.journal.append(scope, 5, notes(5, 1)), "JOURNAL_CONFLICT");
      await expectYokeError(context.journal.append(scope, 0, [runStartedDraft()]), "JOURNAL_CONFLICT");
      expect(await collect(context.journal.read(scope))).toEqual(before);
    });

    it("lets exactly one of several concurrent appends at one sequence number win", async () => {
      const scope = scopeOf("run_1");
      await context.journal.append(scope, 0, [runStartedDraft()]);
      const outcomes = await Promise.allSettled([0, 1, 2, 3, 4].map((writer) => context.journal.append(scope, 1, [eventDraft("test.noted", { writer })])));
      const winners = outcomes.filter((outcome) => outcome.status === "fulfilled");
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "JOURNAL_CONFLICT" });
      }
      expect((await context.journal.head(scope))?.length).toBe(2);
      expect(await context.journal.verify(scope)).toMatchObject({ ok: true, events: 2 });
    });
  });
}

function describeRefusedMidBatch(context: StoreContext): void {
  describe("a batch refused part-way through its writes", () => {
    // 20 events: a store that writes in chunks (SQLite: 16 rows per INSERT) has written a
    // whole chunk before event 17 is refused. Nothing of the batch may remain.
    it("leaves head, read and verify unchanged when event 17 of 20 is refused", async () => {
      const scope = scopeOf("run_mid_batch");
      await context.journal.append(scope, 0, [runStartedDraft(), ...notes(1, 2)]);
      const head = await context.journal.head(scope);
      const events = await collect(context.journal.read(scope));
      const verified = await context.journal.verify(scope);
      const refusedSeq = 3 + 16;
      const batch = notes(3, 20);
      if (context.refuseWriteAt === undefined) {
        batch[16] = { type: "test.noted", at: 0, data: [1, 2] } as unknown as EventDraft;
      } else {
        await context.refuseWriteAt(scope, refusedSeq);
      }
      let refused: unknown;
      try {
        await context.journal.append(scope, 3, batch);
      } catch (error) {
        refused = error;
      }
      expect(YokeError.isInstance(refused), `expected the refused batch to reject with a YokeError, got ${String(refused)}`).toBe(true);
      expect(await context.journal.head(scope)).toEqual(head);
      expect(await collect(context.journal.read(scope))).toEqual(events);
      expect(await collect(context.journal.read(scope, { fromSeq: 3 }))).toEqual([]);
      expect(await context.journal.verify(scope)).toEqual(verified);
      const next = await context.journal.append(scope, 3, notes(3, 2));
      expect(next.events.map((event) => event.seq)).toEqual([3, 4]);
    });
  });
}

/** A fixed `run.started` draft, spelled out so the golden hash below depends on nothing else. */
const GOLDEN_DRAFT: EventDraft = {
  type: "run.started",
  at: 1_700_000_000_000,
  causationId: null,
  data: {
    sessionId: "session_golden",
    task: "Zähle die Äpfel 🍎",
    tools: [],
    limits: { maxTurns: 3 },
    release: { runtime: "golden", eventSchemaVersion: 1 },
  },
};

/**
 * The hash of GOLDEN_DRAFT stored at seq 0 of run `run_golden` of tenant `tenant_golden`:
 * pins the hash format (SHA-256 over canonical JSON) across stores and releases.
 */
const GOLDEN_RUN_STARTED_HASH = "3509a09ad79d89c83455e466a0679fce426113c8eb0ef1d3577e469f7d3a1f3d";
