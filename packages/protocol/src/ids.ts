import { z } from "zod/v4";
import type { Clock } from "./clock.js";
import { YokeError } from "./errors.js";

// Ids are plain strings, not branded types: a run id read from a database, a URL or a CLI
// argument goes straight to `harness.resume`, `RunScope` and the tool context without a cast.
// The names below say which id a signature means; `parseId` checks the `<kind>_<body>` form
// where that matters.

/** A tenant's id: every journal query is scoped by it. */
export type TenantId = string;
/** A session's id (a conversation that holds runs). */
export type SessionId = string;
/** A run's id, unique within its tenant. */
export type RunId = string;
/** A turn's id (one model request and what follows it). */
export type TurnId = string;
/** An action's id: stable across attempts, the idempotency key of its external writes. */
export type ActionId = string;
/** One attempt of an action. */
export type AttemptId = string;

/**
 * The kinds of id in Yoke's identity chain `tenant → session → run → turn → action → attempt`,
 * and `capability` (what a capability broker mints for an action).
 */
export const ID_KINDS = ["tenant", "session", "run", "turn", "action", "attempt", "capability", "reservation", "verification", "interrupt"] as const;
export type IdKind = (typeof ID_KINDS)[number];

/** An id is `<kind>_<body>` where the body sorts in creation order. */
const ID_PATTERN = /^(tenant|session|run|turn|action|attempt|capability|reservation|verification|interrupt)_[0-9A-Za-z_-]{1,64}$/;

/**
 * Produces ids. Ids from one source sort in the order they were made (as strings), so a
 * journal ordered by id is ordered by time. Inject a deterministic source in tests.
 *
 * @example
 * ```ts
 * const ids = sequentialIdSource();
 * const runId = newId(ids, "run"); // "run_00000000000001"
 * ```
 */
export interface IdSource {
  readonly specificationVersion: "v1";
  /** Returns the next id body for `kind` (without the `<kind>_` prefix). */
  next(kind: IdKind): string;
}

/** Mints an id of `kind` from `source`: `<kind>_<body>`. */
export function newId(source: IdSource, kind: IdKind): string {
  return `${kind}_${source.next(kind)}`;
}

/** Checks that `value` is a well-formed id of `kind` and returns it; throws CONFIG_INVALID otherwise. */
export function parseId(kind: IdKind, value: string): string {
  if (!ID_PATTERN.test(value) || !value.startsWith(`${kind}_`)) {
    throw new YokeError("CONFIG_INVALID", `not a ${kind} id: ${JSON.stringify(value.slice(0, 80))}`, {
      details: { kind },
    });
  }
  return value;
}

/** zod schema for an id of `kind`. */
export function idSchema(kind: IdKind): z.ZodType<string, string> {
  return z
    .string()
    .regex(ID_PATTERN)
    .refine((value) => value.startsWith(`${kind}_`), { message: `expected a ${kind} id` });
}

/** A counter per kind, zero-padded: `00000000000001`, `00000000000002`, … Deterministic. */
export function sequentialIdSource(start = 1): IdSource {
  const counters = new Map<IdKind, number>();
  return {
    specificationVersion: "v1",
    next(kind) {
      const value = counters.get(kind) ?? start;
      counters.set(kind, value + 1);
      return String(value).padStart(14, "0");
    },
  };
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export interface UlidIdSourceOptions {
  clock: Clock;
  /** Uniform in [0, 1). Defaults to the platform's cryptographic random source. */
  random?: () => number;
}

/**
 * ULID bodies: 10 characters of millisecond time then 16 of randomness, monotonic within a
 * millisecond (the random part is incremented), so ids sort by creation across restarts.
 */
export function ulidIdSource(options: UlidIdSourceOptions): IdSource {
  const random = options.random ?? cryptoRandom;
  let lastTime = -1;
  let lastRandom: number[] = [];
  return {
    specificationVersion: "v1",
    next() {
      let time = Math.max(0, Math.floor(options.clock.now()));
      if (time <= lastTime) {
        time = lastTime;
        lastRandom = incrementBase32(lastRandom);
      } else {
        lastTime = time;
        lastRandom = Array.from({ length: 16 }, () => Math.floor(random() * 32) % 32);
      }
      let timePart = "";
      for (let index = 0, rest = time; index < 10; index++, rest = Math.floor(rest / 32)) {
        timePart = CROCKFORD[rest % 32] + timePart;
      }
      return timePart + lastRandom.map((digit) => CROCKFORD[digit]).join("");
    },
  };
}

function incrementBase32(digits: number[]): number[] {
  const next = [...digits];
  for (let index = next.length - 1; index >= 0; index--) {
    if (next[index]! < 31) {
      next[index]! += 1;
      return next;
    }
    next[index] = 0;
  }
  throw new YokeError("DUPLICATE_ID", "ULID random part overflowed within one millisecond");
}

function cryptoRandom(): number {
  const buffer = new Uint32Array(1);
  globalThis.crypto.getRandomValues(buffer);
  return buffer[0]! / 2 ** 32;
}
