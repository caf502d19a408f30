// Type tests of @yoke/protocol's public entry, checked by the package's `tsc` (`pnpm
// typecheck`), not run by vitest: a wrong type (or a name in the wrong entry) fails the compile.
import { expectTypeOf } from "vitest";
import {
  YokeError,
  canonicalJson,
  newId,
  parseToolArguments,
  reduceRun,
  sequentialIdSource,
  type AppendOptions,
  type AppendResult,
  type JournalEvent,
  type JournalV1,
  type ModelRequest,
  type ModelResponse,
  type ProviderAdapterV1,
  type RunId,
  type RunState,
  type YokeErrorCode,
  type YokeEventDraft,
} from "./index.js";
// Internals live in the /internal entry, with no semver guarantee.
import { providerError, transitionAction } from "./internal.js";
// @ts-expect-error the action state machine is not on the public entry
import { transitionAction as notPublic } from "./index.js";
// @ts-expect-error the SDK error mapping is not on the public entry
import { providerError as notPublicEither } from "./index.js";

void notPublic;
void notPublicEither;
expectTypeOf(transitionAction).toBeFunction();
expectTypeOf(providerError).toBeFunction();

// Errors: a closed code union, and a guard that narrows to one code.
declare const failure: unknown;
if (YokeError.hasCode(failure, "JOURNAL_CONFLICT")) expectTypeOf(failure.code).toEqualTypeOf<"JOURNAL_CONFLICT">();
expectTypeOf<"DEPENDENCY_MISSING">().toExtend<YokeErrorCode>();
// @ts-expect-error not a Yoke error code
new YokeError("NOT_A_CODE", "x");

// Ids are branded by kind.
expectTypeOf(newId(sequentialIdSource(), "run")).toEqualTypeOf<RunId>();

// The journal interface takes typed drafts and lease options, and yields stored events.
declare const journal: JournalV1;
const scope = { tenantId: "t", runId: "r" };
declare const drafts: readonly YokeEventDraft[];
declare const appendOptions: AppendOptions;
expectTypeOf(journal.append(scope, 0, drafts, appendOptions)).toEqualTypeOf<Promise<AppendResult>>();
expectTypeOf(journal.read(scope)).toEqualTypeOf<AsyncIterable<JournalEvent>>();
expectTypeOf(journal.leases).toExtend<object | undefined>();

// A provider adapter maps one normalized request to one normalized response.
expectTypeOf<ProviderAdapterV1["generate"]>().parameter(0).toEqualTypeOf<ModelRequest>();
expectTypeOf<ReturnType<ProviderAdapterV1["generate"]>>().toEqualTypeOf<Promise<ModelResponse>>();

// Run state is a fold over events; canonical JSON is a string.
expectTypeOf(reduceRun([] as JournalEvent[])).toEqualTypeOf<RunState>();
expectTypeOf(canonicalJson({ a: 1 })).toEqualTypeOf<string>();
expectTypeOf(parseToolArguments).returns.not.toBeAny();
