// Type tests of @yoke/scheduler's public entry, checked by the package's `tsc`.
import { expectTypeOf } from "vitest";
import {
  BatchTransaction,
  argumentDigest,
  callIdempotently,
  errorEnvelope,
  executeBatch,
  outputEnvelope,
  type AttemptOutcome,
  type BatchTransactionOptions,
  type DispatchItem,
  type ExecuteBatchOptions,
} from "./index.js";
import type { ToolResultEnvelope } from "@yoke/protocol";
// @ts-expect-error the action book stays the scheduler's own
import { ActionBook as notPublic } from "./index.js";
// @ts-expect-error nor transitionInput
import { transitionInput as notPublicEither } from "./index.js";

void notPublic;
void notPublicEither;
// The envelopes a custom loop journals, and the digest an idempotency store compares.
expectTypeOf(errorEnvelope).returns.toEqualTypeOf<ToolResultEnvelope>();
expectTypeOf(outputEnvelope).returns.resolves.toHaveProperty("result").toEqualTypeOf<ToolResultEnvelope>();
expectTypeOf(argumentDigest).returns.toEqualTypeOf<string>();

expectTypeOf(BatchTransaction).constructorParameters.toEqualTypeOf<[BatchTransactionOptions]>();
declare const items: readonly DispatchItem[];
declare const options: ExecuteBatchOptions;
expectTypeOf(executeBatch(items, options)).toEqualTypeOf<Promise<AttemptOutcome[]>>();
expectTypeOf(callIdempotently).toBeFunction();
