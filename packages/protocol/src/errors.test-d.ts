// Type tests of YokeError's details, typed per code (checked by the package's `tsc`).
import { expectTypeOf } from "vitest";
import type { YokeErrorDetailsByCode } from "./error-details.js";
import { YokeError, type YokeErrorCode, type YokeErrorDetails } from "./errors.js";
import type { RunPhase } from "./run-state-types.js";

declare const thrown: unknown;

// Every code has an entry, and nothing else does.
expectTypeOf<keyof YokeErrorDetailsByCode>().toEqualTypeOf<YokeErrorCode>();

// hasCode narrows the code and its details.
if (YokeError.hasCode(thrown, "JOURNAL_CONFLICT")) {
  expectTypeOf(thrown.code).toEqualTypeOf<"JOURNAL_CONFLICT">();
  expectTypeOf(thrown.details.expectedSeq).toEqualTypeOf<number>();
  expectTypeOf(thrown.details.actualSeq).toEqualTypeOf<number>();
  expectTypeOf(thrown.details.runId).toEqualTypeOf<string>();
}
if (YokeError.hasCode(thrown, "RUN_NOT_WAITING")) expectTypeOf(thrown.details.phase).toEqualTypeOf<RunPhase>();
if (YokeError.hasCode(thrown, "RUN_LEASE_LOST")) expectTypeOf(thrown.details.currentOwnerId).toEqualTypeOf<string | null>();
if (YokeError.hasCode(thrown, "PROVIDER_RATE_LIMITED")) expectTypeOf(thrown.details.retryAfterMs).toEqualTypeOf<number | undefined>();
if (YokeError.hasCode(thrown, "EVENT_INVALID")) expectTypeOf(thrown.details.unknownDimensions).toEqualTypeOf<string[] | undefined>();
if (YokeError.hasCode(thrown, "DEPENDENCY_MISSING")) expectTypeOf(thrown.details.package).toEqualTypeOf<string>();

// A narrowed error is still a YokeError; an unnarrowed one reads any member as unknown.
expectTypeOf<YokeError<"JOURNAL_CONFLICT">>().toExtend<YokeError>();
declare const any: YokeError;
expectTypeOf(any.details.actualSeq).toEqualTypeOf<unknown>();
expectTypeOf<YokeErrorDetails>().toExtend<Readonly<Record<string, unknown>>>();

// Construction: a code's details must match it; required members must be given.
new YokeError("JOURNAL_CONFLICT", "stale", { details: { tenantId: "t", runId: "r", expectedSeq: 3, actualSeq: 4 } });
// @ts-expect-error JOURNAL_CONFLICT's details are required
new YokeError("JOURNAL_CONFLICT", "stale");
// @ts-expect-error actualSeq is a number
new YokeError("JOURNAL_CONFLICT", "stale", { details: { tenantId: "t", runId: "r", expectedSeq: 3, actualSeq: "4" } });
// @ts-expect-error a code without details takes none
new YokeError("TOOL_UNKNOWN", "no such tool", { details: { tool: "x" } });
new YokeError("TOOL_UNKNOWN", "no such tool");
new YokeError("CANCELLED", "stopped", { cause: new Error("abort") });
// A code known only at run time takes any details (rebuilding an error read back, say).
declare const code: YokeErrorCode;
new YokeError(code, "again", { details: { anything: 1 } });
