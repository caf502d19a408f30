// Type tests: every type derived from BUDGET_DIMENSION_SPECS covers every dimension in it, so a
// dimension added to the list reaches them all (checked by the package's `tsc`).
import { expectTypeOf } from "vitest";
import type { BUDGET_DIMENSION_SPECS, BUDGET_DIMENSIONS } from "./budget-dimensions.js";
import type { BudgetAmounts, BudgetAmountsSchema, BudgetDimension, ReservationResult } from "./budget.js";
import type { Outcome } from "./events.js";

type Listed = (typeof BUDGET_DIMENSION_SPECS)[number]["name"];

expectTypeOf<BudgetDimension>().toEqualTypeOf<Listed>();
expectTypeOf<(typeof BUDGET_DIMENSIONS)[number]>().toEqualTypeOf<Listed>();
expectTypeOf<keyof BudgetAmounts>().toEqualTypeOf<Listed>();
expectTypeOf<keyof (typeof BudgetAmountsSchema)["shape"]>().toEqualTypeOf<Listed>();
expectTypeOf<BudgetAmounts[Listed]>().toEqualTypeOf<number | undefined>();
expectTypeOf<Extract<ReservationResult, { ok: false }>["dimension"]>().toEqualTypeOf<Listed>();
expectTypeOf<Extract<Outcome, { status: "budget_exhausted" }>["budget"]>().toEqualTypeOf<Listed>();
// The names stay a tuple in list order (z.enum and the vectors index by it).
expectTypeOf<(typeof BUDGET_DIMENSIONS)[0]>().toEqualTypeOf<"turns">();
expectTypeOf<(typeof BUDGET_DIMENSIONS)["length"]>().toEqualTypeOf<(typeof BUDGET_DIMENSION_SPECS)["length"]>();
