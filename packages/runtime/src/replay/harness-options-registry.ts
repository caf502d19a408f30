import type { SchemaLike } from "@yoke/protocol";
import type { Harness, HarnessOptions } from "../harness-types.js";

// Weak: a harness that is dropped takes its options with it.
const OPTIONS = new WeakMap<Harness, HarnessOptions<SchemaLike | undefined>>();

/** Notes the options `harness` was created from, so replay can build its twin with recorded inputs. */
export function rememberHarnessOptions(harness: Harness, options: HarnessOptions<SchemaLike | undefined>): void {
  OPTIONS.set(harness, options);
}

/** The options `harness` was created from; undefined for a harness `createHarness` did not make. */
export function harnessOptionsOf(harness: Harness): HarnessOptions<SchemaLike | undefined> | undefined {
  return OPTIONS.get(harness);
}
