// Type tests of @yoke/scheduler's public entry, checked by the package's `tsc`.
import { expectTypeOf } from "vitest";
import {
  BatchTransaction,
  callIdempotently,
  executeBatch,
  type AttemptOutcome,
  type BatchTransactionOptions,
  type DispatchItem,
  type ExecuteBatchOptions,
} from "./index.js";
import { ActionBook, transitionInput } from "./internal.js";
// @ts-expect-error the action book is not on the public entry
import { ActionBook as notPublic } from "./index.js";
// @ts-expect-error nor transitionInput
import { transitionInput as notPublicEither } from "./index.js";

void notPublic;
void notPublicEither;
expectTypeOf(ActionBook).toBeConstructibleWith;
expectTypeOf(transitionInput).toBeFunction();

expectTypeOf(BatchTransaction).constructorParameters.toEqualTypeOf<[BatchTransactionOptions]>();
declare const items: readonly DispatchItem[];
declare const options: ExecuteBatchOptions;
expectTypeOf(executeBatch(items, options)).toEqualTypeOf<Promise<AttemptOutcome[]>>();
expectTypeOf(callIdempotently).toBeFunction();
