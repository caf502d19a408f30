import { YokeError, newId, parseId } from "@yoke/protocol";
import type { Harness } from "../harness-interface.js";
import type { HarnessDeps } from "../run-context.js";
import type { RunResult, WaitingRunResult } from "../run-result.js";
import type { ResumeOptions, StartOptions } from "../run-options.js";
import { DEFAULT_MAX_BUFFERED_DELTAS } from "./delta-buffer.js";
import { FollowedRun } from "./followed-run.js";
import { addTap, driverOf, holdDriver } from "./run-taps.js";
import type { RunStream, StreamOptions } from "./run-stream-types.js";

type Result = RunResult | WaitingRunResult;

/** `harness.stream`: starts the run as `start` does, with the stream following it from its first append. */
export function streamStart(deps: HarnessDeps, harness: Harness, task: Parameters<Harness["start"]>[0], options: StartOptions & StreamOptions = {}): RunStream {
  const { maxBufferedDeltas, ...startOptions } = options;
  const max = checkMaxBufferedDeltas(maxBufferedDeltas);
  const runId = startOptions.runId === undefined ? newId(deps.ids, "run") : parseId("run", startOptions.runId);
  const follower = new FollowedRun(deps, { tenantId: deps.tenantId, runId }, false, max);
  const aborter = new AbortController();
  const signal = startOptions.signal === undefined ? aborter.signal : AbortSignal.any([startOptions.signal, aborter.signal]);
  follower.attached(addTap(deps, runId, follower));
  return driven(deps, harness, runId, follower, harness.start(task, { ...startOptions, runId, signal }), aborter);
}

/**
 * `harness.resumeStream`: when a stream of this harness drives the run, follows it (a
 * reattach: replays the run from its journal, then continues live, until that stream's call
 * returns); else resumes it as `resume` does and follows that.
 */
export function streamResume(deps: HarnessDeps, harness: Harness, runId: string, options: ResumeOptions & StreamOptions = {}): RunStream {
  const { maxBufferedDeltas, ...resumeOptions } = options;
  const max = checkMaxBufferedDeltas(maxBufferedDeltas);
  const follower = new FollowedRun(deps, { tenantId: deps.tenantId, runId }, true, max);
  const driving = driverOf(deps, runId);
  if (driving !== undefined) {
    if (resumeOptions.input !== undefined || resumeOptions.close !== undefined) {
      throw new YokeError("CONFIG_INVALID", `resumeStream: run ${runId} is being driven by a stream of this harness; pass input or close once that returns`, {
        details: { option: resumeOptions.input === undefined ? "close" : "input" },
      });
    }
    follower.attached(addTap(deps, runId, follower));
    return followed(harness, runId, follower, driving as Promise<Result>, undefined);
  }
  const aborter = new AbortController();
  const signal = resumeOptions.signal === undefined ? aborter.signal : AbortSignal.any([resumeOptions.signal, aborter.signal]);
  follower.attached(addTap(deps, runId, follower));
  return driven(deps, harness, runId, follower, harness.resume(runId, { ...resumeOptions, signal }), aborter);
}

function driven(deps: HarnessDeps, harness: Harness, runId: string, follower: FollowedRun, drive: Promise<Result>, aborter: AbortController): RunStream {
  holdDriver(deps, runId, drive);
  return followed(harness, runId, follower, drive, aborter);
}

function followed(harness: Harness, runId: string, follower: FollowedRun, drive: Promise<Result>, aborter: AbortController | undefined): RunStream {
  drive.then(
    (result) => follower.settle({ type: "result", result }),
    (error: unknown) => follower.settle({ type: "error", error }),
  );
  // Awaited or not: a run that fails is reported by its stream's `error` part, never as an unhandled rejection.
  drive.catch(() => undefined);
  let iterated = false;
  return {
    runId,
    result: drive,
    get dropped() {
      return follower.dropped;
    },
    async cancel(reason = "cancelled from the stream") {
      if (aborter !== undefined && !follower.started) {
        aborter.abort(reason);
        return;
      }
      try {
        await harness.interrupt(runId, { cancel: reason });
      } catch (error) {
        if (YokeError.hasCode(error, "RUN_FINISHED")) return;
        // Not journaled yet (the start's first append is still in flight): the start's signal stops it.
        if (YokeError.hasCode(error, "RUN_NOT_FOUND") && aborter !== undefined) aborter.abort(reason);
        else throw error;
      }
    },
    [Symbol.asyncIterator]() {
      if (iterated) throw new YokeError("CONFIG_INVALID", "a run stream has one consumer: iterate it once (open another with resumeStream)");
      iterated = true;
      return follower;
    },
  };
}

function checkMaxBufferedDeltas(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_BUFFERED_DELTAS;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new YokeError("CONFIG_INVALID", "stream: maxBufferedDeltas must be a non-negative integer", {
      details: { option: "maxBufferedDeltas", value: String(value) },
    });
  }
  return value;
}
