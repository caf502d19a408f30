import { YokeError, type JournalHead, type RunScope, type VerifyResult } from "@yoke/protocol";
import { settle, type Awaitable, type Steps } from "./awaitable.js";
import { OLDER_COPY_ADVICE } from "./witness-advice.js";

type ChainFailure = Extract<VerifyResult, { ok: false }>;

/** The reads a witness check needs. */
export interface WitnessReader {
  head(scope: RunScope): Awaitable<JournalHead | null>;
  hashAt(scope: RunScope, seq: number): Awaitable<string | null>;
}

/**
 * The failure of `scope` against its witnessed head `expected`: fewer events than witnessed
 * (`truncated`), or another hash at the witnessed head (`witness_mismatch`). Null when the
 * run holds what was acknowledged, or nothing was witnessed for it.
 */
export function* witnessFailure(reader: WitnessReader, scope: RunScope, expected: JournalHead | undefined): Steps<ChainFailure | null> {
  if (expected === undefined) return null;
  const hash = yield* settle(reader.hashAt(scope, expected.length - 1));
  if (hash === null) {
    const length = (yield* settle(reader.head(scope)))?.length ?? 0;
    return truncatedFailure(length, expected.length);
  }
  if (hash !== expected.hash) {
    return {
      ok: false,
      firstBadSeq: expected.length - 1,
      reason: "witness_mismatch",
      message: `event ${expected.length - 1} does not have the hash its head witness recorded`,
    };
  }
  return null;
}

/** A run of `length` events whose witness says `witnessed` were acknowledged. */
export function truncatedFailure(length: number, witnessed: number): ChainFailure {
  return {
    ok: false,
    firstBadSeq: length,
    reason: "truncated",
    message: `the run has ${length} events but its head witness says ${witnessed} were acknowledged`,
  };
}

export function witnessFailureError(scope: RunScope, failure: ChainFailure, path: string): YokeError {
  const truncated = failure.reason === "truncated";
  return new YokeError(
    truncated ? "JOURNAL_TRUNCATED" : "JOURNAL_WITNESS_INVALID",
    `run ${scope.runId}: ${failure.message} (${path})${truncated ? `: ${OLDER_COPY_ADVICE}` : ""}`,
    {
      details: {
        tenantId: scope.tenantId,
        runId: scope.runId,
        seq: failure.firstBadSeq,
        reason: failure.reason,
        witness: path,
        ...(truncated ? { witnessCase: "older_copy" as const } : {}),
      },
    },
  );
}

/**
 * The error of an append whose events committed but whose witness line could not be written
 * (a full disk): not acknowledged, and not to be retried as is (the events are there; read the
 * head). Other errors pass unchanged.
 */
export function unwitnessedError(scope: RunScope, lastSeq: number, error: YokeError): YokeError {
  if (error.code !== "JOURNAL_UNAVAILABLE" || error.details.witness === undefined) return error;
  return new YokeError("JOURNAL_UNAVAILABLE", `run ${scope.runId}: events up to seq ${lastSeq} are committed, but not acknowledged: ${error.message}`, {
    retryable: false,
    details: { ...error.details, tenantId: scope.tenantId, runId: scope.runId, lastSeq, committed: true },
    cause: error,
  });
}
