import { forkContext, sha256Hex, type ContextInput, type EvidenceItem, type Manifest } from "@yoke/context-compiler";
import { YokeError, type RunState } from "@yoke/protocol";

/** What `run.started.parent.fork` holds: the parent's context a child was forked from. */
export type RunFork = NonNullable<NonNullable<RunState["parent"]>["fork"]>;

/**
 * The parent's compiled context while its batch runs: the manifest of the request its model
 * answered with the spawn (the last `context.compiled`: the next one is compiled only after
 * the batch's outcomes), and the compile input it was taken from, built on demand.
 */
export interface ForkSource {
  readonly manifest: Manifest | undefined;
  input(): ContextInput;
}

/** Items a model can name to share: what it was shown (not omitted, not compacted away) of the transcript and the evidence. */
const SHAREABLE_KINDS: ReadonlySet<string> = new Set(["message", "evidence", "memory"]);

/** The parent item ids the model may share: messages and evidence its request showed, in request order. */
export function shareableIds(manifest: Manifest | undefined): string[] {
  return (manifest?.items ?? [])
    .filter((item) => SHAREABLE_KINDS.has(item.kind) && (item.decision === "included" || item.decision === "truncated"))
    .map((item) => item.id);
}

/**
 * Checks the ids a spawn asks to share against the parent's request: each must name a
 * message or evidence item the parent's model was shown. TOOL_INPUT_INVALID names the ids
 * that do not, and lists those that do (the action fails; no child starts).
 */
export function checkShare(manifest: Manifest | undefined, share: readonly string[]): void {
  if (share.length === 0) return;
  const shareable = shareableIds(manifest);
  const known = new Set(shareable);
  const unknown = share.filter((id) => !known.has(id));
  if (unknown.length === 0) return;
  const listed = shareable.length === 0 ? "nothing can be shared from this request" : `ids you can share: ${shareable.join(", ")}`;
  throw new YokeError(
    "TOOL_INPUT_INVALID",
    `share names ${unknown.map((id) => JSON.stringify(id)).join(", ")}, which your request did not show as a message or evidence item; ${listed}`,
    { details: { unknown, shareable } },
  );
}

/**
 * The fork a new child starts from: `forkContext` over the parent's compiled context at the
 * spawn, with the shared items whole (their text as the parent's model saw it, before any
 * cut, and their trust: a tool output stays `tool_output`). A shared evidence item whose
 * text no longer hashes to what the parent's request showed (a `context.evidence` that is
 * not a function of the run state) is REQUEST_MISMATCH: the child would not get what the
 * parent saw.
 */
export function forkOf(source: ForkSource, task: string, share: readonly string[]): RunFork | undefined {
  const { manifest } = source;
  if (manifest === undefined) return undefined;
  const { input, origin } = forkContext({ input: source.input(), manifest }, { task, share, tools: [] });
  const items = new Map(manifest.items.map((item) => [item.id, item]));
  const evidence = (input.evidence ?? []).map((item, index): RunFork["evidence"][number] => {
    const shown = items.get(share[index]!)!;
    if (shown.contentHash !== undefined && shown.contentHash !== sha256Hex(item.text)) {
      throw new YokeError("REQUEST_MISMATCH", `cannot share ${shown.id}: its text is not the one the parent's request ${manifest.requestHash} showed`, {
        details: { id: shown.id, expected: shown.contentHash, requestHash: manifest.requestHash },
      });
    }
    return { id: item.id, kind: item.kind, text: item.text, priority: item.priority, trust: dataTrust(item) };
  });
  return { parentRevision: origin.parentRevision, parentRequestHash: origin.parentRequestHash, shared: origin.shared, evidence };
}

function dataTrust(item: EvidenceItem): RunFork["evidence"][number]["trust"] {
  const trust = item.trust ?? "retrieved";
  if (trust === "tool_output" || trust === "retrieved" || trust === "remote_tool_description") return trust;
  throw new YokeError("INTERNAL", `forkContext gave shared item ${item.id} the trust ${trust}, which is not a data label`);
}

const NONE: readonly EvidenceItem[] = [];

/** A child run's shared evidence (`run.started.parent.fork`), the same objects on every turn so the compiler's caches hit; none for another run. */
export function forkedEvidence(state: Pick<RunState, "parent">): readonly EvidenceItem[] {
  return state.parent?.fork?.evidence ?? NONE;
}

/** The texts of a fork's evidence by their hash: what a child's manifest names them by (its artifacts, journaled once, in `run.started`). */
export function forkArtifacts(fork: RunFork | undefined): Map<string, string> {
  return new Map((fork?.evidence ?? []).map((item) => [sha256Hex(item.text), item.text] as const));
}
