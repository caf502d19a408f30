import type { ModelStreamPart } from "@yoke/protocol";
import type { HarnessDeps, RunContext } from "../run-context.js";
import type { TurnParticipant } from "../turn/participant.js";
import type { RunStreamDelta } from "./stream-parts.js";

/** One stream's view of a run it follows: told what became durable, and handed each delta. Never throws, never waits. */
export interface RunTap {
  /** The run's journal is durable up to `length` (one past the last stored seq). */
  durable(length: number): void;
  delta(part: RunStreamDelta): void;
}

/** The streams that follow one run of one harness, and the stream that drives it, if any. */
interface RunTaps {
  readonly taps: Set<RunTap>;
  /** The result of the `stream` / `resumeStream` call that drives the run in this harness. */
  driver: Promise<unknown> | undefined;
}

// Keyed by the harness's deps: a harness's runs are seen only by that harness's streams.
const registry = new WeakMap<HarnessDeps, Map<string, RunTaps>>();

function entry(deps: HarnessDeps, runId: string): RunTaps {
  let runs = registry.get(deps);
  if (runs === undefined) registry.set(deps, (runs = new Map()));
  let taps = runs.get(runId);
  if (taps === undefined) runs.set(runId, (taps = { taps: new Set(), driver: undefined }));
  return taps;
}

function prune(deps: HarnessDeps, runId: string, taps: RunTaps): void {
  if (taps.taps.size === 0 && taps.driver === undefined) registry.get(deps)?.delete(runId);
}

/** Follows run `runId` until the returned function is called. */
export function addTap(deps: HarnessDeps, runId: string, tap: RunTap): () => void {
  const taps = entry(deps, runId);
  taps.taps.add(tap);
  return () => {
    taps.taps.delete(tap);
    prune(deps, runId, taps);
  };
}

/** Marks run `runId` as driven by a stream of this harness until `driver` settles. */
export function holdDriver(deps: HarnessDeps, runId: string, driver: Promise<unknown>): void {
  const taps = entry(deps, runId);
  taps.driver = driver;
  const release = () => {
    if (taps.driver !== driver) return;
    taps.driver = undefined;
    prune(deps, runId, taps);
  };
  driver.then(release, release);
}

/** The stream that drives `runId` in this harness, if one does. */
export function driverOf(deps: HarnessDeps, runId: string): Promise<unknown> | undefined {
  return registry.get(deps)?.get(runId)?.driver;
}

/** Tells the run's streams what the journal now holds, once each append is durable. */
export const streamRelay: TurnParticipant = {
  name: "stream relay",
  committed: (context, { lastSeq }) => {
    const taps = registry.get(context.deps)?.get(context.scope.runId);
    if (taps !== undefined) for (const tap of taps.taps) tap.durable(lastSeq + 1);
  },
};

/**
 * The `onStreamPart` of one model call: hands each delta of the attempt in flight to the
 * run's streams. What a stream does with it never reaches the adapter (a tap never throws).
 */
export function deltaRelay(context: RunContext, turnId: string, attempt: () => number): (part: ModelStreamPart) => void {
  const { deps } = context;
  const runId = context.scope.runId;
  return (part) => {
    const taps = registry.get(deps)?.get(runId);
    if (taps === undefined || taps.taps.size === 0) return;
    const delta = deltaOf(part, turnId, attempt());
    if (delta !== undefined) for (const tap of taps.taps) tap.delta(delta);
  };
}

function deltaOf(part: ModelStreamPart, turnId: string, attempt: number): RunStreamDelta | undefined {
  switch (part.type) {
    case "text-delta":
      return { type: "text-delta", turnId, attempt, text: part.text };
    case "reasoning-delta":
      return { type: "reasoning-delta", turnId, attempt, text: part.text };
    case "tool-call-start":
      return { type: "tool-call-start", turnId, attempt, toolCallId: part.toolCallId, toolName: part.toolName };
    case "tool-call-delta":
      return { type: "tool-call-delta", turnId, attempt, toolCallId: part.toolCallId, argumentsDelta: part.argumentsDelta };
    default:
      // The rest (the finish, refusals, server tools) reaches the stream durably, with the response.
      return undefined;
  }
}
