// Whether a pinned revision may still be called: callable when it is the live one; else the
// drift (changed, renamed, removed) or why it cannot be known (withdrawn, source unavailable).
import type { ToolResolution, ToolRevisionRecord } from "@yoke/protocol";
import { changesBetween } from "./changes.js";
import { sortByName } from "./discovery.js";
import type { LiveTools } from "./live-tools.js";
import type { SourceSync } from "./source-sync.js";

export async function resolvePinned(pinned: ToolRevisionRecord, tools: LiveTools, sources: SourceSync): Promise<ToolResolution> {
  // Only the pinned tool's own source can change it (a rename keeps the origin): a source
  // that is slow to re-list holds up its own tools, not the others.
  await sources.settled(pinned.origin);
  const state = tools.lifecycleOf(pinned.name);
  if (state.lifecycle === "withdrawn") return { status: "withdrawn", ...(state.reason === undefined ? {} : { reason: state.reason }) };
  if (sources.stale(pinned.origin))
    return { status: "unavailable", reason: `the source of ${pinned.name} could not be re-listed, so what it offers now is unknown` };
  const live = tools.liveByName.get(pinned.name);
  if (live !== undefined && live.digest === pinned.digest) return { status: "callable", revision: live };
  if (live !== undefined) {
    const changes = changesBetween(pinned, live);
    if (changes.length === 0) return { status: "unavailable", reason: `the pinned record of ${pinned.name} does not match its digest` };
    return { status: "drifted", drift: { toolName: pinned.name, pinned: pinned.digest, offered: live.digest, changes }, offered: live };
  }
  const body = tools.bodyOf(pinned);
  const renamed = sortByName([...tools.liveByName.values()]).find(
    (candidate) => tools.lifecycleOf(candidate.name).lifecycle !== "withdrawn" && tools.bodyOf(candidate) === body,
  );
  if (renamed) {
    return {
      status: "drifted",
      drift: { toolName: pinned.name, pinned: pinned.digest, offered: renamed.digest, changes: ["renamed"], renamedTo: renamed.name },
      offered: renamed,
    };
  }
  if (tools.byDigest.has(pinned.digest) || sources.holds(pinned.origin)) {
    return { status: "drifted", drift: { toolName: pinned.name, pinned: pinned.digest, offered: null, changes: ["removed"] } };
  }
  return { status: "unavailable", reason: `no registered source offers ${pinned.name}` };
}
