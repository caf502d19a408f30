// Properties of the ledger over random operation sequences (the run's seed: scripts/vitest-setup.ts,
// YOKE_FC_SEED replays one): it agrees with a from-scratch reference model; over random trees
// of child reservations with interleaved reserve / settle / release, no parent is ever charged
// past its reservation except by recorded overshoots, and folding the emitted events rebuilds it.
import { type BudgetDimension, type ChargeAttribution, compactReservation, compactSettlement, YokeError } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eventsOf } from "./__fixtures__/events.js";
import { RefError, ReferenceLedger } from "./__fixtures__/reference-ledger.js";
import { type BudgetLedger, createBudgetLedger, foldBudget } from "./index.js";

const DIMS = ["tokens", "input_tokens", "output_tokens", "spend", "tool_ops", "fan_out", "concurrency"] as const satisfies readonly BudgetDimension[];
type Amounts = Partial<Record<BudgetDimension, number>>;
const attribution: ChargeAttribution = { kind: "other", runId: "run-1" };

/** A few dimensions (most work names two or three), mostly small amounts so trees grow deep. */
const amountsArb = (max: number, maxDims = 3): fc.Arbitrary<Amounts> =>
  fc
    .uniqueArray(fc.constantFrom(...DIMS), { maxLength: maxDims })
    .chain((dims) =>
      fc
        .tuple(
          ...dims.map(() =>
            fc.oneof({ arbitrary: fc.integer({ min: 0, max: Math.ceil(max / 8) }), weight: 3 }, { arbitrary: fc.integer({ min: 0, max }), weight: 1 }),
          ),
        )
        .map((values) => Object.fromEntries(dims.map((d, index) => [d, values[index]!])) as Amounts),
    );

type Op =
  | { op: "reserve"; parent: number; amounts: Amounts }
  | { op: "settle"; target: number; actual: Amounts; overshoot: boolean }
  | { op: "release"; target: number }
  /** Two reservations checked one after the other, then both reserved: a check is no promise. */
  | { op: "race"; parent: number; a: Amounts; b: Amounts };

const opArb = (max: number): fc.Arbitrary<Op> =>
  fc.oneof(
    { arbitrary: fc.record({ op: fc.constant("reserve" as const), parent: fc.nat(), amounts: amountsArb(max) }), weight: 5 },
    { arbitrary: fc.record({ op: fc.constant("settle" as const), target: fc.nat(), actual: amountsArb(max), overshoot: fc.boolean() }), weight: 3 },
    { arbitrary: fc.record({ op: fc.constant("release" as const), target: fc.nat() }), weight: 1 },
    { arbitrary: fc.record({ op: fc.constant("race" as const), parent: fc.nat(), a: amountsArb(max), b: amountsArb(max) }), weight: 1 },
  );

const limitsArb = amountsArb(1_000, 4);

/** Runs `run`, mapping BUDGET_INVALID (real) and RefError (reference) to "invalid". */
function outcome<T>(run: () => T): T | "invalid" {
  try {
    return run();
  } catch (error) {
    if (YokeError.hasCode(error, "BUDGET_INVALID") || error instanceof RefError) return "invalid";
    throw error;
  }
}

describe("ledger properties", () => {
  it("model-based: every reserve, settle, release and remaining agrees with a from-scratch reference model", () => {
    fc.assert(
      fc.property(limitsArb, fc.array(opArb(160), { maxLength: 60, size: "max" }), (limits, ops) => {
        const real = createBudgetLedger({ budgetId: "b", limits });
        const model = new ReferenceLedger("b", limits);
        const ids = ["b"];
        let next = 0;
        const pick = (index: number) => ids[index % ids.length]!;
        for (const step of ops) {
          switch (step.op) {
            case "reserve":
            case "race": {
              const requests = step.op === "reserve" ? [step.amounts] : [step.a, step.b];
              const parent = pick(step.parent);
              for (const amounts of requests) {
                const id = `r${next++}`;
                const got = outcome(() => real.reserve({ reservationId: id, parentId: parent, amounts, attribution }));
                expect(got).toEqual(outcome(() => model.reserve(id, parent, amounts)));
                if (got !== "invalid" && got.ok) ids.push(id);
              }
              break;
            }
            case "settle": {
              const id = step.target % 5 === 4 ? "unknown" : pick(step.target);
              expect(outcome(() => real.settle(id, step.actual, { overshoot: step.overshoot }))).toEqual(
                outcome(() => model.settle(id, step.actual, step.overshoot)),
              );
              break;
            }
            case "release": {
              const id = pick(step.target);
              expect(outcome(() => real.release(id))).toEqual(outcome(() => model.settle(id, {}, false)));
              break;
            }
          }
          for (const id of ids) expect(real.remaining(id)).toEqual(model.remaining(id));
        }
      }),
    );
  });

  it("random trees of child reservations, interleaved: children are never charged past a parent's reservation except by recorded overshoots (one per reservation), and folding the events (budget.* or carried by the work's events) rebuilds the ledger", () => {
    fc.assert(
      fc.property(limitsArb, fc.array(opArb(160), { minLength: 1, maxLength: 80, size: "max" }), (limits, ops) => {
        const ledger = createBudgetLedger({ budgetId: "b", limits });
        const drafts: { type: string; data: object }[] = [{ type: "budget.opened", data: ledger.opened() }];
        // The test's own record of the tree, from what the ledger returned (not from its internals).
        const tree = new Map<string, { parent: string | null; amounts: Amounts; charged?: Amounts; excess?: Amounts; open: boolean }>([
          ["b", { parent: null, amounts: limits, open: true }],
        ]);
        const overshootIds: string[] = [];
        let next = 0;
        const carried = (id: string) => Number(id.slice(1)) % 2 === 0;
        const openIds = () => [...tree].filter(([, node]) => node.open).map(([id]) => id);

        const reserve = (parent: string, amounts: Amounts) => {
          const id = `r${next++}`;
          const result = ledger.reserve({ reservationId: id, parentId: parent, amounts, attribution });
          if (result.ok) {
            // Every other reservation rides on the work's own events (`reserved` / `settled`) in the carried form
            // (no run in the attribution, no `released`), as a runtime journals model calls and dispatches.
            const data = { reservationId: id, parentId: parent, amounts, attribution };
            drafts.push(
              carried(id)
                ? { type: "action.admitted", data: { reserved: compactReservation(data, { runId: "run-1", data: {} }) } }
                : { type: "budget.reserved", data },
            );
            tree.set(id, { parent, amounts: ledger.reservation(id)!.amounts, open: true });
          }
          return result;
        };
        const closed = (id: string, data: ReturnType<BudgetLedger["settle"]>) => {
          drafts.push(carried(id) ? { type: "action.committed", data: { settled: compactSettlement(data) } } : { type: "budget.settled", data });
          const node = tree.get(id)!;
          node.open = false;
          node.charged = data.charged;
          if (data.overshoot) {
            overshootIds.push(id);
            const childCharges = childrenCharged(id);
            node.excess = Object.fromEntries(DIMS.map((d) => [d, Math.max(0, (data.charged[d] ?? 0) - (node.amounts[d] ?? childCharges[d] ?? 0))])) as Amounts;
          }
        };
        const children = (id: string) => [...tree].filter(([, node]) => node.parent === id);
        const childrenCharged = (id: string): Amounts => {
          const sum: Amounts = {};
          for (const [, child] of children(id)) for (const d of DIMS) sum[d] = (sum[d] ?? 0) + (child.charged?.[d] ?? 0);
          return sum;
        };
        /** Charged or held by the children of `id` in `d`, through children that do not name `d`. */
        const committed = (id: string, d: BudgetDimension): number =>
          children(id).reduce(
            (sum, [childId, child]) =>
              sum + (!child.open ? (child.charged?.[d] ?? 0) : child.amounts[d] !== undefined ? child.amounts[d] : committed(childId, d)),
            0,
          );
        /** Overshoot excess of the children of `id` in `d` (through children that do not name `d`). */
        const excess = (id: string, d: BudgetDimension): number =>
          children(id).reduce((sum, [childId, child]) => sum + (child.excess?.[d] ?? 0) + (child.amounts[d] === undefined ? excess(childId, d) : 0), 0);

        for (const step of ops) {
          const open = openIds();
          // Newer reservations are picked more often as parents, so trees grow deep.
          const parentOf = (pick: number) => open[open.length - 1 - (pick % Math.min(open.length, 3))]!;
          if (step.op === "reserve") reserve(parentOf(step.parent), step.amounts);
          if (step.op === "race") {
            const parent = parentOf(step.parent);
            const first = ledger.check({ reservationId: "race-a", parentId: parent, amounts: step.a, attribution });
            const second = ledger.check({ reservationId: "race-b", parentId: parent, amounts: step.b, attribution });
            const a = reserve(parent, step.a);
            const b = reserve(parent, step.b);
            if (!first.ok) expect(a.ok).toBe(false);
            if (!second.ok) expect(b.ok).toBe(false);
          }
          if (step.op === "settle" || step.op === "release") {
            // Only leaves can close (children first), like finished work.
            const leaves = open.filter((id) => id !== "b" && children(id).every(([, child]) => !child.open));
            if (leaves.length === 0) continue;
            const id = leaves[step.target % leaves.length]!;
            if (step.op === "release") {
              const result = outcome(() => ledger.release(id));
              if (result !== "invalid") {
                expect(result.overshoot).toBeUndefined();
                closed(id, result);
              } else expect(Object.values(childrenCharged(id)).some((value) => value > 0)).toBe(true);
            } else {
              const result = outcome(() => ledger.settle(id, step.actual, { overshoot: step.overshoot }));
              if (result === "invalid") expect(step.overshoot).toBe(false);
              else {
                // Past what it held only when the caller declared the in-flight overshoot.
                if (!step.overshoot) expect(result.overshoot).toBeUndefined();
                closed(id, result);
              }
            }
          }
          for (const [id, node] of tree) {
            if (!node.open) continue;
            for (const d of DIMS) {
              const limit = node.amounts[d];
              if (limit === undefined) continue;
              expect(committed(id, d), `${id} ${d}`).toBeLessThanOrEqual(limit + (d === "concurrency" ? 0 : excess(id, d)));
            }
          }
        }
        expect(new Set(overshootIds).size).toBe(overshootIds.length);
        // Crash recovery: a fresh ledger folded from the journaled events is the same ledger.
        const folded = foldBudget(eventsOf("run-1", drafts));
        expect(folded!.snapshot()).toEqual(ledger.snapshot());
        for (const id of openIds()) expect(folded!.remaining(id)).toEqual(ledger.remaining(id));
      }),
    );
  });
});
