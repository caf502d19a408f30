/**
 * A seeded source of randomness (splitmix32): the same numbers for the same seed on every
 * platform and Node version, so a world derived from it is the same world every time.
 * `fork(label)` gives an independent stream for one part of the world, so drawing more for
 * one part (a longer model script, say) never shifts what another part draws.
 *
 * @example
 * ```ts
 * const random = seededRandom(42);
 * random.int(1, 6); // a die
 * random.fork("tools").pick(["a", "b"]);
 * ```
 */
export interface SeededRandom {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with probability `probability`. */
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** The items in a seeded order (a new array). */
  shuffle<T>(items: readonly T[]): T[];
  /** An independent stream, named: the same (seed, label) always gives the same stream. */
  fork(label: string): SeededRandom;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  };
  const random: SeededRandom = {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    shuffle(items) {
      const copy = [...items];
      for (let index = copy.length - 1; index > 0; index--) {
        const other = Math.floor(next() * (index + 1));
        [copy[index], copy[other]] = [copy[other]!, copy[index]!];
      }
      return copy;
    },
    fork: (label) => seededRandom(mix(seed, label)),
  };
  return random;
}

/** FNV-1a of the label, folded into the seed. */
function mix(seed: number, label: string): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = 0; index < label.length; index++) hash = Math.imul(hash ^ label.charCodeAt(index), 0x01000193) >>> 0;
  return hash;
}
