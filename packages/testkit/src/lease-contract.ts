import { YokeError, steppingClock, type Clock, type JournalV1, type RunLease, type RunLeasesV1, type RunScope } from "@yoke/protocol";
import fc from "fast-check";
import { expect } from "vitest";
import { describe, it, recordContractTests, type ContractTests } from "./contract-recorder.js";
import { eventDraft, runStartedDraft } from "./event-drafts.js";
import { expectYokeError, runIdSource, scopeOf, useFreshStore, type JournalContractStore } from "./journal-contract-support.js";
import { describeLeaseRefusals } from "./lease-contract-errors.js";

/** Builds an empty store whose leases expire on `clock`. */
export type LeaseStoreFactory = (clock: Clock) => Promise<JournalContractStore> | JournalContractStore;

export interface LeaseContractOptions {
  /** Iterations of the model-based test. Default 50. */
  readonly numRuns?: number;
}

const TTL = 1_000;

/**
 * Registers the `RunLeasesV1` contract as vitest tests: one live owner per run, fencing
 * tokens that only grow (from one counter per store, across runs), appends checked against the current lease in their own
 * transaction, renew/release semantics, the refusals and their `details` (CONFIG_INVALID,
 * RUN_LEASE_HELD, RUN_LEASE_LOST, JOURNAL_CLOSED), and a fast-check model-based test of random
 * acquire/renew/release/append/clock sequences against a reference model. The store must
 * offer `journal.leases` and measure expiry on the clock it is given (its store clock: a
 * SQLite journal's `storeClock`).
 *
 * @example
 * ```ts
 * import { describeRunLeaseContract } from "@yoke/testkit/contracts";
 * describeRunLeaseContract("my store", async (clock) => ({ journal: await createMyJournal({ clock }) }));
 * ```
 */
export function describeRunLeaseContract(name: string, makeStore: LeaseStoreFactory, options: LeaseContractOptions = {}): void {
  describe(`RunLeasesV1 contract: ${name}`, () => {
    const clock = steppingClock(1_000_000, 0);
    const context = useFreshStore(() => makeStore(clock));
    const leasesOf = (journal: JournalV1): RunLeasesV1 => {
      if (journal.leases === undefined) throw new YokeError("TESTKIT_EXPECTATION_FAILED", `${name} offers no leases`);
      return journal.leases;
    };

    it("gives a run one live owner; another owner gets RUN_LEASE_HELD until it expires, then token + 1", async () => {
      const leases = leasesOf(context.journal);
      const scope = scopeOf("run_lease_1");
      const first = await leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL });
      expect(first).toMatchObject({ ...scope, ownerId: "owner_a", token: 1, expiresAt: clock.now() + TTL });
      const held = await expectYokeError(leases.acquire(scope, { ownerId: "owner_b", ttlMs: TTL }), "RUN_LEASE_HELD");
      expect(held.details).toMatchObject({ ownerId: "owner_a", token: 1 });
      await expectYokeError(leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL }), "RUN_LEASE_HELD");
      clock.advance(TTL);
      const second = await leases.acquire(scope, { ownerId: "owner_b", ttlMs: TTL });
      expect(second.token).toBe(2);
      expect(await leases.current(scope)).toEqual(second);
    });

    it("checks every append against the current lease in the append's own transaction", async () => {
      const journal = context.journal;
      const leases = leasesOf(journal);
      const scope = scopeOf("run_lease_2");
      const first = await leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL });
      await expectYokeError(journal.append(scope, 0, [runStartedDraft()]), "RUN_LEASE_HELD");
      await journal.append(scope, 0, [runStartedDraft()], { lease: first });
      clock.advance(TTL);
      // Expired, but nobody took the run: the owner's token is still the newest.
      await journal.append(scope, 1, [eventDraft("test.noted", { index: 1 })], { lease: first });
      const second = await leases.acquire(scope, { ownerId: "owner_b", ttlMs: TTL });
      const lost = await expectYokeError(journal.append(scope, 2, [eventDraft("test.noted", { index: 2 })], { lease: first }), "RUN_LEASE_LOST");
      expect(lost.details).toMatchObject({ token: 1, currentToken: 2 });
      expect((await journal.head(scope))?.length).toBe(2);
      await journal.append(scope, 2, [eventDraft("test.noted", { index: 2 })], { lease: second });
      expect((await journal.verify(scope)).ok).toBe(true);
    });

    it("renews a current lease and refuses to renew one that was taken over", async () => {
      const leases = leasesOf(context.journal);
      const scope = scopeOf("run_lease_3");
      const first = await leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL });
      clock.advance(TTL - 1);
      const renewed = await leases.renew(first, TTL);
      expect(renewed).toEqual({ ...first, expiresAt: clock.now() + TTL });
      clock.advance(TTL - 1);
      await expectYokeError(leases.acquire(scope, { ownerId: "owner_b", ttlMs: TTL }), "RUN_LEASE_HELD");
      clock.advance(1);
      await leases.acquire(scope, { ownerId: "owner_b", ttlMs: TTL });
      await expectYokeError(leases.renew(renewed, TTL), "RUN_LEASE_LOST");
    });

    it("releases at once: the next owner need not wait, and the released token may no longer append", async () => {
      const journal = context.journal;
      const leases = leasesOf(journal);
      const scope = scopeOf("run_lease_4");
      const first = await leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL });
      await journal.append(scope, 0, [runStartedDraft()], { lease: first });
      await leases.release(first);
      await expectYokeError(journal.append(scope, 1, [eventDraft("test.noted", {})], { lease: first }), "RUN_LEASE_LOST");
      await expectYokeError(leases.renew(first, TTL), "RUN_LEASE_LOST");
      // Without a live lease, a writer that takes none may append (the journal used alone).
      await journal.append(scope, 1, [eventDraft("test.noted", {})]);
      const second = await leases.acquire(scope, { ownerId: "owner_b", ttlMs: TTL });
      expect(second.token).toBe(2);
      await leases.release(first);
      expect(await leases.current(scope)).toEqual(second);
    });

    it("takes a live lease whose owner is known gone, and asks only about live leases of others", async () => {
      const leases = leasesOf(context.journal);
      const scope = scopeOf("run_lease_5");
      await leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL });
      const asked: string[] = [];
      const taken = await leases.acquire(scope, {
        ownerId: "owner_b",
        ttlMs: TTL,
        ownerIsGone: (lease) => {
          asked.push(lease.ownerId);
          return true;
        },
      });
      expect(asked).toEqual(["owner_a"]);
      expect(taken.token).toBe(2);
    });

    it("numbers fencing tokens from one counter per store: each acquisition, of any run or tenant, outranks every earlier one", async () => {
      const leases = leasesOf(context.journal);
      const runs = [scopeOf("run_tokens_1"), { tenantId: "tenant_other", runId: "run_tokens_2" }, scopeOf("run_tokens_3")];
      const tokens: number[] = [];
      for (const scope of runs) tokens.push((await leases.acquire(scope, { ownerId: "owner_a", ttlMs: TTL })).token);
      const first = (await leases.current(runs[0]!))!;
      await leases.release(first);
      tokens.push((await leases.acquire(runs[0]!, { ownerId: "owner_b", ttlMs: TTL })).token);
      for (let index = 1; index < tokens.length; index++) expect(tokens[index]!, `token ${index}`).toBeGreaterThan(tokens[index - 1]!);
    });

    it("refuses malformed lease requests with CONFIG_INVALID", async () => {
      const leases = leasesOf(context.journal);
      await expectYokeError(leases.acquire(scopeOf("run_lease_6"), { ownerId: "", ttlMs: TTL }), "CONFIG_INVALID");
      await expectYokeError(leases.acquire(scopeOf("run_lease_6"), { ownerId: "a", ttlMs: 0 }), "CONFIG_INVALID");
    });

    const nextRunId = runIdSource("run_model");
    it("agrees with a reference model over random acquire, renew, release, append and clock steps", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(commandArbitrary, { minLength: 1, maxLength: 30 }), async (commands) => {
          const journal = context.journal;
          const leases = leasesOf(journal);
          const scope = scopeOf(nextRunId());
          const model = new LeaseModel(await lastIssued(leases, scope));
          const held = new Map<string, RunLease>();
          for (const command of commands) await applyCommand(command, { journal, leases, scope, clock, model, held });
        }),
        { numRuns: options.numRuns ?? 50 },
      );
    });

    describeLeaseRefusals(context, () => leasesOf(context.journal), clock);
  });
}

/**
 * The tests `describeRunLeaseContract` registers, as data. Register them with a literal
 * `describe` and `it.for`, and `vitest list` (a static read of the test file) shows the
 * contract suite.
 *
 * @example
 * ```ts
 * const contract = runLeaseContractTests("my store", async (clock) => ({ journal: await createMyJournal({ clock }) }));
 * describe("RunLeasesV1 contract: my store", () => {
 *   it.for(contract.tests)("$title", (test) => test.run());
 * });
 * ```
 */
export function runLeaseContractTests(name: string, makeStore: LeaseStoreFactory, options: LeaseContractOptions = {}): ContractTests {
  return recordContractTests(() => describeRunLeaseContract(name, makeStore, options));
}

type Command =
  | { kind: "acquire"; owner: string; ttl: number }
  | { kind: "renew"; owner: string; ttl: number }
  | { kind: "release"; owner: string }
  | { kind: "append"; owner: string | null }
  | { kind: "tick"; ms: number };

const owner = fc.constantFrom("owner_a", "owner_b", "owner_c");
const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant("acquire" as const), owner, ttl: fc.integer({ min: 1, max: 50 }) }),
  fc.record({ kind: fc.constant("renew" as const), owner, ttl: fc.integer({ min: 1, max: 50 }) }),
  fc.record({ kind: fc.constant("release" as const), owner }),
  fc.record({ kind: fc.constant("append" as const), owner: fc.option(owner, { nil: null }) }),
  fc.record({ kind: fc.constant("tick" as const), ms: fc.integer({ min: 0, max: 60 }) }),
);

/**
 * The last token the store handed out before a run of the model test: a throwaway run's first
 * token, less one (the store's counter is shared by every run, so a fresh run need not start at 1).
 */
async function lastIssued(leases: RunLeasesV1, scope: RunScope): Promise<number> {
  const probe = { tenantId: scope.tenantId, runId: `${scope.runId}_probe` };
  const lease = await leases.acquire(probe, { ownerId: "owner_probe", ttlMs: 1 });
  await leases.release(lease);
  return lease.token;
}

/**
 * The reference: the latest lease and the run's length. `issued` is the store's last token;
 * only this run acquires while the model runs, so each acquisition takes `issued + 1`.
 */
class LeaseModel {
  token = 0;
  constructor(public issued: number) {}
  ownerId: string | null = null;
  expiresAt = 0;
  released = false;
  length = 0;
  live(now: number): boolean {
    return this.token > 0 && !this.released && this.expiresAt > now;
  }
}

interface ModelContext {
  readonly journal: JournalV1;
  readonly leases: RunLeasesV1;
  readonly scope: RunScope;
  readonly clock: Clock & { advance(ms: number): void };
  readonly model: LeaseModel;
  /** The last lease each owner was given. */
  readonly held: Map<string, RunLease>;
}

async function applyCommand(command: Command, context: ModelContext): Promise<void> {
  const { journal, leases, scope, clock, model, held } = context;
  const now = clock.now();
  switch (command.kind) {
    case "tick":
      clock.advance(command.ms);
      return;
    case "acquire": {
      if (model.live(now)) {
        await expectYokeError(leases.acquire(scope, { ownerId: command.owner, ttlMs: command.ttl }), "RUN_LEASE_HELD");
        return;
      }
      const lease = await leases.acquire(scope, { ownerId: command.owner, ttlMs: command.ttl });
      model.issued += 1;
      model.token = model.issued;
      Object.assign(model, { ownerId: command.owner, expiresAt: now + command.ttl, released: false });
      expect(lease).toEqual({ ...scope, ownerId: command.owner, token: model.token, expiresAt: now + command.ttl });
      held.set(command.owner, lease);
      return;
    }
    case "renew": {
      const lease = held.get(command.owner);
      if (lease === undefined) return;
      if (lease.token !== model.token || model.released) {
        await expectYokeError(leases.renew(lease, command.ttl), "RUN_LEASE_LOST");
        return;
      }
      const renewed = await leases.renew(lease, command.ttl);
      model.expiresAt = now + command.ttl;
      expect(renewed.expiresAt).toBe(model.expiresAt);
      held.set(command.owner, renewed);
      return;
    }
    case "release": {
      const lease = held.get(command.owner);
      if (lease === undefined) return;
      await leases.release(lease);
      if (lease.token === model.token && !model.released) {
        model.released = true;
        model.expiresAt = Math.min(model.expiresAt, now);
      }
      expect(await leases.current(scope)).toMatchObject({ token: model.token });
      return;
    }
    case "append": {
      const lease = command.owner === null ? undefined : held.get(command.owner);
      const draft = model.length === 0 ? runStartedDraft() : eventDraft("test.noted", { index: model.length });
      const append = journal.append(scope, model.length, [draft], lease === undefined ? {} : { lease });
      if (lease === undefined && model.live(now)) {
        await expectYokeError(append, "RUN_LEASE_HELD");
      } else if (lease !== undefined && (lease.token !== model.token || model.released)) {
        await expectYokeError(append, "RUN_LEASE_LOST");
      } else {
        await append;
        model.length += 1;
      }
      expect((await journal.head(scope))?.length ?? 0).toBe(model.length);
    }
  }
}
