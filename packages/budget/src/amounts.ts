import { BUDGET_DIMENSIONS, type BudgetAmounts, type BudgetDimension, YokeError } from "@yoke/protocol";

/** BudgetAmounts as stored JSON: a dimension is absent or a number, never `undefined`. */
export type Amounts = { [D in BudgetDimension]?: number };

/** Amounts as a dense vector indexed like BUDGET_DIMENSIONS; `undefined` = not named. */
export type Vector = (number | undefined)[];

export const DIMENSION_COUNT = BUDGET_DIMENSIONS.length;
const INDEX: Readonly<Record<string, number>> = Object.fromEntries(BUDGET_DIMENSIONS.map((dimension, index) => [dimension, index]));
export const TOKENS = INDEX.tokens!;
export const INPUT_TOKENS = INDEX.input_tokens!;
export const OUTPUT_TOKENS = INDEX.output_tokens!;
export const CONCURRENCY = INDEX.concurrency!;

export function invalid(message: string, details: Record<string, unknown> = {}): YokeError {
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
  // A switch over the names (BUDGET_DIMENSIONS' order; amounts.test.ts checks it): every amount read looks up each of its keys.
  switch (dimension) {
    case "turns":
      return 0;
    case "tokens":
      return 1;
    case "input_tokens":
      return 2;
    case "output_tokens":
      return 3;
    case "cache_read_tokens":
      return 4;
    case "cache_write_tokens":
      return 5;
    case "spend":
      return 6;
    case "wall_time":
      return 7;
    case "tool_ops":
      return 8;
    case "fan_out":
      return 9;
    case "concurrency":
      return 10;
    default:
      return -1;
  }
}

export function dimensionAt(index: number): BudgetDimension {
  return BUDGET_DIMENSIONS[index]!;
}

/** A vector naming no dimension, one entry per dimension of BUDGET_DIMENSIONS (amounts.test.ts keeps the count in step; an array literal: cheaper to make than `new Array(n).fill()`, and made for every amount read). */
export function emptyVector(): Vector {
  return [undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined];
}

export function zeros(): number[] {
  return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
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
