import type { EventDraft, JournalV1, RunScope } from "@yoke/protocol";
import fc from "fast-check";
import { expect } from "vitest";
import { describe, it } from "./contract-recorder.js";
import { eventDraft, runStartedDraft } from "./event-drafts.js";
import { collect, expectChain, expectYokeError, runIdSource, type StoreContext } from "./journal-contract-support.js";

/**
 * The reference model: per (tenant, run), the drafts a correct store has accepted. A store
 * under test must agree with it after every command, whatever the sequence.
 */
interface JournalModel {
  readonly runs: Map<string, EventDraft[]>;
  readonly prefix: string;
}

interface Real {
  readonly journal: JournalV1;
}

const TENANTS = ["tenant_m1", "tenant_m2"] as const;
const RUNS = ["a", "b", "c"] as const;

type Target = { readonly tenant: number; readonly run: number };

function scopeIn(model: JournalModel, target: Target): RunScope {
  return { tenantId: TENANTS[target.tenant]!, runId: `${model.prefix}_${RUNS[target.run]!}` };
}

function drafts(model: JournalModel, target: Target): EventDraft[] {
  const key = `${target.tenant}/${target.run}`;
  let list = model.runs.get(key);
  if (!list) {
    list = [];
    model.runs.set(key, list);
  }
  return list;
}

class AppendCommand implements fc.AsyncCommand<JournalModel, Real> {
  constructor(
    readonly target: Target,
    /** 0 appends at the head; anything else names a stale or future sequence number. */
    readonly skew: number,
    readonly notes: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: JournalModel, real: Real): Promise<void> {
    const scope = scopeIn(model, this.target);
    const accepted = drafts(model, this.target);
    const expectedSeq = Math.max(0, accepted.length + this.skew);
    const batch = [
      ...(expectedSeq === 0 ? [runStartedDraft()] : []),
      ...Array.from({ length: this.notes }, (_, index) => eventDraft("model.noted", { index, at: expectedSeq }, { at: expectedSeq + index })),
    ];
    if (batch.length === 0) batch.push(eventDraft("model.noted", { empty: true }));
    if (expectedSeq === accepted.length) {
      const result = await real.journal.append(scope, expectedSeq, batch);
      expect(result.lastSeq).toBe(expectedSeq + batch.length - 1);
      accepted.push(...batch);
    } else {
      await expectYokeError(real.journal.append(scope, expectedSeq, batch), "JOURNAL_CONFLICT");
    }
  }
  toString(): string {
    return `append(${TENANTS[this.target.tenant]}/${RUNS[this.target.run]}, skew ${this.skew}, ${this.notes} notes)`;
  }
}

class ReadCommand implements fc.AsyncCommand<JournalModel, Real> {
  constructor(readonly target: Target) {}
  check(): boolean {
    return true;
  }
  async run(model: JournalModel, real: Real): Promise<void> {
    const scope = scopeIn(model, this.target);
    const accepted = drafts(model, this.target);
    expectChain(scope, await collect(real.journal.read(scope)), accepted);
    const head = await real.journal.head(scope);
    if (accepted.length === 0) expect(head).toBeNull();
    else expect(head?.length).toBe(accepted.length);
    const verified = await real.journal.verify(scope);
    expect(verified).toMatchObject({ ok: true, events: accepted.length });
  }
  toString(): string {
    return `read(${TENANTS[this.target.tenant]}/${RUNS[this.target.run]})`;
  }
}

class ListRunsCommand implements fc.AsyncCommand<JournalModel, Real> {
  constructor(readonly tenant: number) {}
  check(): boolean {
    return true;
  }
  async run(model: JournalModel, real: Real): Promise<void> {
    const listed = (await collect(real.journal.listRuns(TENANTS[this.tenant]!)))
      .filter((summary) => summary.runId.startsWith(`${model.prefix}_`))
      .map((summary) => [summary.runId, summary.length]);
    const expected = RUNS.map((_, run) => [scopeIn(model, { tenant: this.tenant, run }).runId, drafts(model, { tenant: this.tenant, run }).length])
      .filter(([, length]) => (length as number) > 0)
      .sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
    expect(listed).toEqual(expected);
  }
  toString(): string {
    return `listRuns(${TENANTS[this.tenant]})`;
  }
}

const target = fc.record({ tenant: fc.nat(TENANTS.length - 1), run: fc.nat(RUNS.length - 1) });
const commands = [
  fc.tuple(target, fc.constantFrom(0, 0, 0, -1, 1, -3), fc.nat(3)).map(([at, skew, notes]) => new AppendCommand(at, skew, notes)),
  target.map((at) => new ReadCommand(at)),
  fc.nat(TENANTS.length - 1).map((tenant) => new ListRunsCommand(tenant)),
];

/**
 * Model-based test: random sequences of appends (at the head, stale, or ahead), reads,
 * heads, verifies and listings over two tenants and three runs, checked against the model
 * after every step.
 */
export function describeJournalModel(context: StoreContext, settings: { readonly numRuns: number }): void {
  describe("model-based", () => {
    it("agrees with a reference model under any sequence of commands", async () => {
      const nextPrefix = runIdSource("model");
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 40 }), async (sequence) => {
          const setup = () => ({ model: { runs: new Map(), prefix: nextPrefix() }, real: { journal: context.journal } });
          await fc.asyncModelRun(setup, sequence);
        }),
        { numRuns: settings.numRuns },
      );
    });
  });
}
