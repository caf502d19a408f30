import { BUDGET_DIMENSION_SPECS, BUDGET_DIMENSIONS, type BudgetAmounts, type BudgetDimension, YokeError, type YokeErrorDetailsByCode } from "@yoke/protocol";

/** BudgetAmounts as stored JSON: a dimension is absent or a number, never `undefined`. */
export type Amounts = { [D in BudgetDimension]?: number };

/** Amounts as a dense vector indexed like BUDGET_DIMENSIONS; `undefined` = not named. */
export type Vector = (number | undefined)[];

export const DIMENSION_COUNT = BUDGET_DIMENSIONS.length;
/** Index by name, without a prototype: `toString` or `__proto__` is no dimension. */
const INDEX: Readonly<Record<string, number>> = Object.assign(
  Object.create(null) as Record<string, number>,
  Object.fromEntries(BUDGET_DIMENSIONS.map((dimension, index) => [dimension, index])),
);
export const TOKENS = INDEX.tokens!;
export const INPUT_TOKENS = INDEX.input_tokens!;
export const OUTPUT_TOKENS = INDEX.output_tokens!;
/** Per index: the dimension is a gauge (held while the work runs, released whole, never charged). */
export const GAUGE: readonly boolean[] = BUDGET_DIMENSION_SPECS.map((spec) => spec.kind === "gauge");

export function invalid(message: string, details: YokeErrorDetailsByCode["BUDGET_INVALID"] = {}): YokeError {
  return new YokeError("BUDGET_INVALID", message, { details });
}

/**
 * Checks `amounts` (known dimensions, non-negative safe integers) and returns its vector.
 * With `deriveTokens`, an absent `tokens` is `input_tokens + output_tokens` when either is named.
 */
export function toVector(amounts: unknown, what: string, deriveTokens: boolean): Vector {
  if (typeof amounts !== "object" || amounts === null || Array.isArray(amounts)) throw invalid(`${what}: expected an object of amounts`);
  const vector = emptyVector();
  const record = amounts as Record<string, unknown>;
  // One pass over the members there are (a reservation names three to six of the eleven).
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (value === undefined) continue;
    const index = indexOf(key);
    if (index === -1) throw invalid(`${what}: unknown budget dimension "${key}"`, { dimension: key });
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      throw invalid(`${what}: ${key} must be a non-negative integer, got ${String(value)}`, { dimension: key, value });
    }
    vector[index] = value;
  }
  if (deriveTokens && vector[TOKENS] === undefined && (vector[INPUT_TOKENS] !== undefined || vector[OUTPUT_TOKENS] !== undefined)) {
    vector[TOKENS] = (vector[INPUT_TOKENS] ?? 0) + (vector[OUTPUT_TOKENS] ?? 0);
  }
  return vector;
}

/** The named (non-undefined) entries of a vector, as BudgetAmounts with keys in code-unit order (canonical JSON's). */
export function toAmounts(vector: Vector, skipZero = false): Amounts {
  const amounts: Record<string, number> = {};
  for (let at = 0; at < DIMENSION_COUNT; at++) {
    const index = CANONICAL_ORDER[at]!;
    const value = vector[index];
    if (value === undefined || (skipZero && value === 0)) continue;
    amounts[CANONICAL_DIMENSIONS[at]!] = value;
  }
  return amounts as Amounts;
}

/**
 * Dimension indexes in code-unit order of their names: the order canonical JSON writes keys in.
 * Amounts built in it are journaled as they are (canonicalJson copies an object only to sort it).
 */
const CANONICAL_ORDER: readonly number[] = BUDGET_DIMENSIONS.map((_, index) => index).sort((a, b) => (BUDGET_DIMENSIONS[a]! < BUDGET_DIMENSIONS[b]! ? -1 : 1));
const CANONICAL_DIMENSIONS: readonly BudgetDimension[] = CANONICAL_ORDER.map((index) => BUDGET_DIMENSIONS[index]!);

/** The index of `dimension` in a vector; -1 for a name that is not a budget dimension. */
export function indexOf(dimension: unknown): number {
  // Every amount read looks up each of its keys: one keyed load, no string compares.
  const index = typeof dimension === "string" ? INDEX[dimension] : undefined;
  return index === undefined ? -1 : index;
}

export function dimensionAt(index: number): BudgetDimension {
  return BUDGET_DIMENSIONS[index]!;
}

const EMPTY: Vector = BUDGET_DIMENSIONS.map(() => undefined);
const ZEROS: number[] = BUDGET_DIMENSIONS.map(() => 0);

/** A vector naming no dimension, one entry per dimension of BUDGET_DIMENSIONS (a copy: the ledger writes into it). */
export function emptyVector(): Vector {
  return EMPTY.slice();
}

/** A vector of zeros, one per dimension (a copy, as emptyVector). */
export function zeros(): number[] {
  return ZEROS.slice();
}

/** Sums amounts per dimension (a dimension named by none stays absent), keys in code-unit order (canonical JSON's). */
export function addAmounts(...list: BudgetAmounts[]): Amounts {
  const out: Record<string, number> = {};
  for (const amounts of list) {
    for (const [key, value] of Object.entries(amounts)) if (value !== undefined) out[key] = (out[key] ?? 0) + value;
  }
  return sortAmounts(out as Amounts);
}

/** The same amounts with keys in code-unit order (canonical JSON's). */
export function sortAmounts(amounts: BudgetAmounts): Amounts {
  const out: Record<string, number> = {};
  for (const dimension of CANONICAL_DIMENSIONS) if (amounts[dimension] !== undefined) out[dimension] = amounts[dimension];
  return out as Amounts;
}
