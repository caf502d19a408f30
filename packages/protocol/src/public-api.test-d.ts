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
// What an adapter or a store outside the @yoke packages needs is on two more public entries.
import { EVENT_TYPE_PATTERN, JOURNAL_KEY_ID_PATTERN, transitionAction, type ActionTransitionResult } from "./journal-utils.js";
import { cancellable, providerError, withUsageTotals, type ProviderErrorKind } from "./provider-utils.js";
// @ts-expect-error the action state machine is not on the root entry
import { transitionAction as notOnRoot } from "./index.js";
// @ts-expect-error nor is the SDK error mapping
import { providerError as notOnRootEither } from "./index.js";

void notOnRoot;
void notOnRootEither;
expectTypeOf(transitionAction).returns.toEqualTypeOf<ActionTransitionResult>();
expectTypeOf(EVENT_TYPE_PATTERN).toEqualTypeOf<RegExp>();
expectTypeOf(JOURNAL_KEY_ID_PATTERN).toEqualTypeOf<RegExp>();
expectTypeOf(providerError).returns.toEqualTypeOf<YokeError>();
expectTypeOf(cancellable<number>).returns.toEqualTypeOf<Promise<number>>();
expectTypeOf(withUsageTotals).returns.toExtend<{ inputTokens: number; outputTokens: number }>();
expectTypeOf<"rate_limit">().toExtend<ProviderErrorKind>();

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
