import {
  ToolRevisionRecordSchema,
  YokeError,
  canonicalJson,
  type DiscoveryRequest,
  type RunState,
  type ToolRevisionRecord,
  type ToolSnapshot,
  type ToolSpec,
} from "@yoke/protocol";
import { setDigestOf } from "@yoke/tool-registry";

/*
 * The run's pinned tools as the journal says them (docs/decisions/0010): what `run.started`
 * pinned, what `tool.readmitted` replaced, what each `turn.started` offered. Pure functions of
 * the folded state, so a resume and `reconstructRequest` see exactly what the first process saw.
 */

/** The tools of one turn, as `turn.started.offered` names them. */
export type TurnOffer = NonNullable<RunState["offeredTools"]>;

/** A revision as the journal stores it: the record's fields only (no declaration, no `undefined` member). */
export function revisionRecord(revision: ToolRevisionRecord): ToolRevisionRecord {
  return JSON.parse(canonicalJson(ToolRevisionRecordSchema.parse(revision))) as ToolRevisionRecord;
}

/** A snapshot as `run.started` journals it. */
export function snapshotRecord(snapshot: ToolSnapshot): ToolSnapshot {
  return { digest: snapshot.digest, revisions: snapshot.revisions.map(revisionRecord) };
}

/**
 * The snapshot discovery chooses from on the next turn: the pinned one while nothing was
 * re-admitted or drifted; else the revisions the run calls now (re-admitted ones in place of
 * the snapshot's), without the drifted tools, under their set digest (`setDigestOf`).
 */
export function callableSnapshot(state: RunState): ToolSnapshot | undefined {
  const snapshot = state.toolSnapshot;
  if (snapshot === undefined) return undefined;
  const current = [...state.pinnedTools.values()].filter((revision) => !state.driftedTools.has(revision.name));
  const unchanged = current.length === snapshot.revisions.length && snapshot.revisions.every((revision) => state.pinnedTools.get(revision.name) === revision);
  if (unchanged) return snapshot;
  const revisions = current.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { digest: setDigestOf(revisions), revisions };
}

/**
 * The record of revision `digest` of tool `name`: the one the run calls now, or the one the
 * snapshot pinned (a turn offered before a re-admission). JOURNAL_CORRUPT when the journal
 * names a revision it never pinned.
 */
export function pinnedRevision(state: RunState, name: string, digest: string): ToolRevisionRecord {
  const current = state.pinnedTools.get(name);
  if (current?.digest === digest) return current;
  const pinned = state.toolSnapshot?.revisions.find((revision) => revision.name === name && revision.digest === digest);
  if (pinned !== undefined) return pinned;
  throw new YokeError("JOURNAL_CORRUPT", `the journal names revision ${digest} of ${name}, which run ${state.runId} never pinned`, {
    details: { runId: state.runId, toolName: name, digest },
  });
}

/**
 * The tool specs a turn's request offers, and which of them come from outside the process
 * (their descriptions are untrusted content): from `turn.started.offered`, or, for a turn
 * about to start, `offer`. Undefined for a run that pinned no snapshot (every tool of
 * `run.started` is offered, as before the registry).
 */
export function turnTools(state: RunState, offer: TurnOffer | undefined = state.offeredTools): TurnTools | undefined {
  if (state.toolSnapshot === undefined || offer === undefined) return undefined;
  const tools: ToolSpec[] = [];
  const remote: string[] = [];
  const revisions: Record<string, string> = {};
  for (const { name, digest } of offer.tools) {
    const revision = pinnedRevision(state, name, digest);
    tools.push(revision.spec);
    revisions[name] = digest;
    if (revision.origin.kind !== "local") remote.push(name);
  }
  return { digest: offer.digest, tools, remote, revisions };
}

/** A turn's offered tools as the context compiler takes them: specs, the remote ones' names, each one's revision digest. */
export interface TurnTools {
  /** The offered set's digest: equal digests, equal tools. */
  readonly digest: string;
  readonly tools: ToolSpec[];
  readonly remote: string[];
  readonly revisions: Readonly<Record<string, string>>;
}

/**
 * Who asks for a run's tools and what for: the harness's `discovery` option (an object, or a
 * function of the run's state), else the run's tenant as principal with no filter. The task is
 * the run's task unless the function says otherwise.
 */
export type DiscoveryOption = { readonly principal: string; readonly filter?: DiscoveryRequest["filter"] } | ((state: RunState) => DiscoveryRequest);

export function discoveryRequest(option: DiscoveryOption | undefined, state: RunState): DiscoveryRequest {
  if (typeof option === "function") return option(state);
  if (option === undefined) return { principal: state.tenantId, task: state.task };
  return { principal: option.principal, task: state.task, ...(option.filter === undefined ? {} : { filter: option.filter }) };
}
