import {
  YokeError,
  type RunState,
  type ToolCallPart,
  type AnyToolDeclaration,
  type ToolDrift,
  type ToolRegistryV1,
  type ToolResolution,
  type ToolRevisionRecord,
  type YokeEventDraft,
} from "@yoke/protocol";
import type { RunContext } from "./run-context.js";
import { callableSnapshot, discoveryRequest, pinnedRevision, revisionRecord, type TurnOffer } from "./pinned-tools.js";
import { judgeCalls, lookupIn, validateCall, type CallDecision, type ToolLookup } from "./validate-calls.js";

type Declaration = AnyToolDeclaration;

/**
 * The tools offered to the turn about to start: the registry's discovery over the run's
 * callable pinned revisions (`callableSnapshot`), for the harness's discovery request. Undefined
 * for a run that pinned no snapshot (a journal written before the registry).
 */
export function offerTurn(context: RunContext, state: RunState): TurnOffer | undefined {
  const snapshot = callableSnapshot(state);
  const registry = context.deps.registry;
  if (snapshot === undefined || registry === undefined) return undefined;
  const offered = registry.discover(snapshot, discoveryRequest(context.deps.discovery, state));
  return { digest: offered.digest, tools: offered.revisions.map((revision) => ({ name: revision.name, digest: revision.digest })) };
}

/** The verdicts on a response's calls, and the compatibility events to journal before them (same transaction). */
export interface Judgement {
  readonly decisions: CallDecision[];
  /** `tool.drifted` (once per drift) and `tool.readmitted`, in the order found. */
  readonly preface: YokeEventDraft[];
}

/**
 * Judges a response's calls. A run that pinned no snapshot judges them against the harness's
 * tools, as before the registry. A run with pinned tools: a name it does not pin is
 * TOOL_UNKNOWN; a tool drifted earlier in the run is TOOL_DRIFTED; one not offered to this
 * turn is TOOL_NOT_OFFERED; otherwise the registry resolves the pinned revision (once per name
 * and batch): callable → the call runs that revision; drifted → `tool.drifted` is journaled
 * and, when a declared rule re-admits the change, `tool.readmitted` and the call runs the new
 * revision, else TOOL_DRIFTED; withdrawn → TOOL_WITHDRAWN; unavailable →
 * TOOL_REVISION_UNAVAILABLE. Every refusal goes back to the model as a tool error; other calls
 * of the batch are judged on their own.
 */
export async function judgeResponseCalls(context: RunContext, state: RunState, calls: readonly ToolCallPart[]): Promise<Judgement> {
  if (state.toolSnapshot === undefined)
    return { decisions: await judgeCalls(calls, async (name) => lookupIn(context.deps.tools, name), state.maxToolCallsPerTurn), preface: [] };
  const registry = requireRegistry(context);
  const preface: YokeEventDraft[] = [];
  const turnId = state.currentTurnId ?? null;
  const offered = state.offeredTools === undefined ? undefined : new Map(state.offeredTools.tools.map((tool) => [tool.name, tool.digest]));
  const offeredNames = [...(offered?.keys() ?? state.pinnedTools.keys())].sort().join(", ") || "(none)";
  const lookups = new Map<string, Promise<ToolLookup>>();

  const lookup = async (name: string): Promise<ToolLookup> => {
    const pinned = state.pinnedTools.get(name);
    if (pinned === undefined) {
      return reject("TOOL_UNKNOWN", `there is no tool named ${JSON.stringify(name)}; the tools offered to this turn are: ${offeredNames}`);
    }
    const drift = state.driftedTools.get(name);
    if (drift !== undefined) return reject("TOOL_DRIFTED", driftedMessage(drift));
    const digest = offered === undefined ? pinned.digest : offered.get(name);
    if (digest === undefined) {
      return reject("TOOL_NOT_OFFERED", `${name} is not offered to this turn, so the call was not run; the tools offered to this turn are: ${offeredNames}`);
    }
    const resolution = await resolveSafely(registry, pinned);
    switch (resolution.status) {
      case "callable":
        if (resolution.revision.digest !== pinned.digest) {
          return reject(
            "TOOL_REVISION_UNAVAILABLE",
            `the registry resolved ${name} to revision ${resolution.revision.digest}, not to the pinned ${pinned.digest}; the call was not run`,
          );
        }
        context.revisions.set(pinned.digest, resolution.revision.declaration);
        return { kind: "tool", tool: resolution.revision.declaration, revision: pinned.digest };
      case "drifted": {
        const at = context.deps.clock.now();
        preface.push({ type: "tool.drifted", at, causationId: turnId, data: driftData(resolution.drift) });
        context.logger.warn({ toolName: name, pinned: pinned.digest, offered: resolution.drift.offered, changes: resolution.drift.changes }, "tool drifted");
        const next = resolution.offered;
        // A rename is never re-admitted under the old name: the run pins tools by name.
        const rule = next === undefined || next.name !== name ? undefined : registry.readmissionRule(resolution.drift, next);
        if (next === undefined || rule === undefined) return reject("TOOL_DRIFTED", driftedMessage(resolution.drift));
        preface.push({ type: "tool.readmitted", at, causationId: turnId, data: { toolName: name, rule: rule.id, revision: revisionRecord(next) } });
        context.logger.info({ toolName: name, rule: rule.id, revision: next.digest }, "tool re-admitted");
        context.revisions.set(next.digest, next.declaration);
        return { kind: "tool", tool: next.declaration, revision: next.digest };
      }
      case "withdrawn":
        return reject(
          "TOOL_WITHDRAWN",
          `${name} was withdrawn from the tool registry${resolution.reason ? ` (${resolution.reason})` : ""}; the call was not run and no run may call it`,
        );
      case "unavailable":
        return reject("TOOL_REVISION_UNAVAILABLE", `no source can run the revision of ${name} this run pinned (${resolution.reason}); the call was not run`);
    }
  };
  const cached = (name: string): Promise<ToolLookup> => {
    let found = lookups.get(name);
    if (found === undefined) lookups.set(name, (found = lookup(name)));
    return found;
  };
  const decisions = await judgeCalls(calls, cached, state.maxToolCallsPerTurn);
  return { decisions, preface };
}

/**
 * The declaration of the revision an in-flight action was admitted under (`action.admitted`'s
 * `toolRevision`): what a resume's reconciliation, retry or compensation runs, never the live
 * one. The one this process admitted it with, else the registry's resolution of that pinned
 * revision. A revision that drifted, was withdrawn or that no source can run stops the run
 * with that typed error (TOOL_DRIFTED, TOOL_WITHDRAWN, TOOL_REVISION_UNAVAILABLE); a drift is
 * journaled first (`tool.drifted`), once.
 */
export async function admittedDeclaration(context: RunContext, state: RunState, toolName: string, digest: string, actionId: string): Promise<Declaration> {
  const known = context.revisions.get(digest);
  if (known !== undefined) return known;
  const registry = requireRegistry(context);
  const pinned = pinnedRevision(state, toolName, digest);
  const resolution = await resolveSafely(registry, pinned);
  if (resolution.status === "callable" && resolution.revision.digest === digest) {
    context.revisions.set(digest, resolution.revision.declaration);
    return resolution.revision.declaration;
  }
  const details = { actionId, toolName, revision: digest };
  const stop = `action ${actionId} was admitted under revision ${digest} of ${toolName}`;
  switch (resolution.status) {
    case "drifted":
      throw new YokeError(
        "TOOL_DRIFTED",
        `${stop}, whose definition changed (${resolution.drift.changes.join(", ")}); the run stops rather than run another definition`,
        { details: { ...details, drift: driftData(resolution.drift) } },
      );
    case "withdrawn":
      throw new YokeError("TOOL_WITHDRAWN", `${stop}, which was withdrawn from the registry; the run stops`, { details });
    case "unavailable":
      throw new YokeError("TOOL_REVISION_UNAVAILABLE", `${stop}, which no source can run (${resolution.reason}); the run stops`, { details });
    default:
      throw new YokeError("TOOL_REVISION_UNAVAILABLE", `${stop}; the registry resolved it to another revision; the run stops`, { details });
  }
}

/** `admittedDeclaration`'s drift, to journal before the run stops (unless the run already knows it). */
export function driftOf(error: unknown, state: RunState): ToolDrift | undefined {
  if (!YokeError.isInstance(error) || error.code !== "TOOL_DRIFTED") return undefined;
  const drift = (error.details as { drift?: ToolDrift } | undefined)?.drift;
  if (drift === undefined || state.driftedTools.has(drift.toolName) || state.pinnedTools.get(drift.toolName)?.digest !== drift.pinned) return undefined;
  return drift;
}

/** Re-judges one journaled call for an action admitted under `digest`: its input parsed by that revision's schema. */
export async function judgeAdmitted(context: RunContext, state: RunState, call: ToolCallPart, digest: string, actionId: string): Promise<CallDecision> {
  const tool = await admittedDeclaration(context, state, call.toolName, digest, actionId);
  return validateCall(call, tool, digest);
}

/** The admission drafts of one call, naming the tool revision it runs (when the run pinned its tools). */
export function withRevision(drafts: YokeEventDraft[], revision: string | undefined): YokeEventDraft[] {
  if (revision === undefined) return drafts;
  return drafts.map((draft) =>
    draft.type === "action.admitted" || draft.type === "action.proposed" || draft.type === "action.approval_requested"
      ? ({ ...draft, data: { ...draft.data, toolRevision: revision } } as YokeEventDraft)
      : draft,
  );
}

function requireRegistry(context: RunContext): ToolRegistryV1 {
  const registry = context.deps.registry;
  if (registry === undefined) {
    throw new YokeError("CONFIG_INVALID", "this run pinned a tool snapshot; resume it with a harness that has a tool registry (or tools)", {
      details: { option: "registry" },
    });
  }
  return registry;
}

async function resolveSafely(registry: ToolRegistryV1, pinned: ToolRevisionRecord): Promise<ToolResolution> {
  try {
    return await registry.resolve(pinned);
  } catch (error) {
    return { status: "unavailable", reason: error instanceof Error ? error.message : String(error) };
  }
}

/** The drift as `tool.drifted` journals it (no `undefined` member). */
function driftData(drift: ToolDrift): ToolDrift {
  return {
    toolName: drift.toolName,
    pinned: drift.pinned,
    offered: drift.offered,
    changes: drift.changes.slice(),
    ...(drift.renamedTo === undefined ? {} : { renamedTo: drift.renamedTo }),
  };
}

function driftedMessage(drift: ToolDrift): string {
  const what = drift.changes.includes("removed")
    ? "its source no longer offers it"
    : drift.changes.includes("renamed")
      ? `its source renamed it${drift.renamedTo === undefined ? "" : ` to ${drift.renamedTo}`}`
      : `its definition changed (${drift.changes.join(", ")})`;
  return `${drift.toolName} changed since this run pinned it: ${what}. The call was not run; the tool cannot be called by this run unless a declared rule re-admits the change`;
}

function reject(code: Extract<ToolLookup, { kind: "reject" }>["code"], message: string): ToolLookup {
  return { kind: "reject", code, message };
}
