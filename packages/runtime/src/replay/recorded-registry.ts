import {
  YokeError,
  type JournalEvent,
  type ToolDeclarationV1,
  type ToolDrift,
  type ToolRegistryV1,
  type ToolResolution,
  type ToolRevisionRecord,
  type ToolRevisionV1,
} from "@yoke/protocol";
import type { ReplayTape } from "./replay-tape.js";

// Where a judgement's commit ends in the record: the drift it journaled is before the next of these.
const COMMIT_AFTER = new Set(["turn.started", "model.requested", "run.completed", "run.failed", "run.waiting"]);
// What a rebuilt revision cannot take from the record: code (validators, handlers) the record holds only as data.
const NOT_REBUILT = new Set(["input_schema", "output_schema", "renamed"]);

/**
 * `registry` as the recorded run found it: the registry is the world, and a tool that drifted
 * while the run went on (its source re-listed it changed) drifted in the record, not in
 * today's registry. Where the record journals `tool.drifted` for a pinned revision, `resolve`
 * answers that drift, offering the revision `tool.readmitted` recorded (built on the pinned
 * declaration, with the recorded description and contract); whether a rule re-admits it is
 * asked of the registry's code again. Everything else is the registry's own answer.
 */
export function recordedRegistry(registry: ToolRegistryV1, tape: ReplayTape): ToolRegistryV1 {
  return {
    specificationVersion: registry.specificationVersion,
    register: (tool, options) => registry.register(tool, options),
    addSource: (source, options) => registry.addSource(source, options),
    refresh: () => registry.refresh(),
    setLifecycle: (name, lifecycle, reason) => registry.setLifecycle(name, lifecycle, reason),
    snapshot: () => registry.snapshot(),
    discover: (snapshot, request) => registry.discover(snapshot, request),
    readmissionRule: (drift, offered) => registry.readmissionRule(drift, offered),
    compatibilityEvents: () => registry.compatibilityEvents(),
    close: () => registry.close(),
    async resolve(pinned: ToolRevisionRecord): Promise<ToolResolution> {
      const live = await registry.resolve(pinned);
      const recorded = recordedDrift(tape.events(tape.active), tape.lengthOf(tape.active), pinned);
      if (recorded === undefined) return live;
      const base = live.status === "callable" ? live.revision.declaration : undefined;
      const offered = recorded.offered === undefined ? undefined : rebuilt(recorded.offered, recorded.drift, base);
      return { status: "drifted", drift: recorded.drift, ...(offered === undefined ? {} : { offered }) };
    },
  } as ToolRegistryV1;
}

/** The drift of `pinned` the record journals in the commit the active stream appends next, and the revision it re-admitted. */
function recordedDrift(
  events: readonly JournalEvent[],
  from: number,
  pinned: ToolRevisionRecord,
): { drift: ToolDrift; offered: ToolRevisionRecord | undefined } | undefined {
  let drift: ToolDrift | undefined;
  for (const event of events.slice(from)) {
    if (COMMIT_AFTER.has(event.type)) break;
    if (event.type === "tool.drifted" && drift === undefined) {
      const data = event.data as unknown as ToolDrift;
      if (data.toolName === pinned.name && data.pinned === pinned.digest) drift = data;
    }
    if (event.type === "tool.readmitted" && drift !== undefined) {
      const revision = (event.data as { toolName: string; revision: ToolRevisionRecord }).revision;
      if (revision.digest === drift.offered) return { drift, offered: revision };
    }
  }
  return drift === undefined ? undefined : { drift, offered: undefined };
}

/** The re-admitted revision: the pinned declaration with the recorded spec and contract (handlers never run in a replay). */
function rebuilt(record: ToolRevisionRecord, drift: ToolDrift, base: ToolDeclarationV1 | undefined): ToolRevisionV1 {
  const missing = base === undefined ? "the pinned declaration" : drift.changes.find((change) => NOT_REBUILT.has(change));
  if (missing !== undefined) {
    throw new YokeError("REPLAY_UNSUPPORTED", `replay cannot rebuild the revision of ${drift.toolName} the record re-admitted (${missing} is code, not data)`, {
      details: { reason: "drifted_revision", toolName: drift.toolName, changes: drift.changes },
    });
  }
  const { contract } = record;
  const declaration = {
    ...base!,
    spec: record.spec,
    sideEffect: contract.sideEffect,
    timeoutMs: contract.timeoutMs,
    maxAttempts: contract.maxAttempts,
    dataClassification: contract.dataClassification,
    network: contract.network,
    ...(contract.outputBudget === null ? {} : { outputBudget: contract.outputBudget }),
    ...(contract.owner === null ? {} : { owner: contract.owner }),
  } as ToolDeclarationV1;
  return { ...record, declaration };
}
