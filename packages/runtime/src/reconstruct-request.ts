import { applyManifestDelta, contextInputFromRunState, rebuildRequest, sha256Hex, type ContextInput, type Manifest } from "@yoke/context-compiler";
import {
  RunStateAccumulator,
  YokeError,
  type JournalEvent,
  type JournalV1,
  type ModelRequest,
  type RunScope,
  type YokeErrorDetailsByCode,
} from "@yoke/protocol";
import { cutOutputsOf, verifyOutOfLine, type CutOutput, type ReconstructOptions } from "./cut-outputs.js";
import { parseManifestDelta } from "./compiled-context.js";
import { turnTools } from "./pinned-tools.js";
import { forkArtifacts } from "./subagents/fork-source.js";
import { loadHistory, withHistory, type SessionHistory } from "./sessions/session-history.js";
import type { ContinuedRun } from "./sessions/session-history.js";

export type { CutOutput, ReconstructOptions } from "./cut-outputs.js";

/** The event a transcript item came from: `message:<n>` in this run, `history:<n>` in an earlier run of the session. */
function seqOf(id: string, messageSeqs: readonly number[], history: SessionHistory | undefined): number {
  const origin = history?.origins.get(id);
  return origin === undefined ? messageSeqs[Number(id.slice("message:".length))]! : origin.seq;
}

function mismatch(message: string, details: YokeErrorDetailsByCode["REQUEST_MISMATCH"]): YokeError {
  return new YokeError("REQUEST_MISMATCH", message, { details });
}

/**
 * A request rebuilt from a journal, checked against the hash journaled before it was sent.
 *
 * @example
 * ```ts
 * const { request, manifest, sourceSeqs } = await reconstructRequest(journal, scope, 3);
 * for (const item of manifest.items.filter((item) => item.decision === "truncated")) {
 *   console.log(item.id, "from event", sourceSeqs.get(item.id), item.truncations);
 * }
 * ```
 */
export interface ReconstructedRequest {
  readonly turnIndex: number;
  /** Sequence number of the turn's `context.compiled`. */
  readonly seq: number;
  readonly request: ModelRequest;
  /** The request bytes (see docs/decisions/0003); their SHA-256 is `requestHash`. */
  readonly bytes: string;
  readonly requestHash: string;
  readonly manifest: Manifest;
  /** The journal event each transcript item of the manifest came from, by item id (`message:<n>` → seq). */
  readonly sourceSeqs: ReadonlyMap<string, number>;
  /**
   * Every tool output the request shows cut, and where its full text is: inline in the event
   * `seq` (checked to hash to `artifactHash`), or, with `artifact`, in the artifact store
   * (checked by `reconstructRequest` when it is given the store).
   */
  readonly cutOutputs: readonly CutOutput[];
}

/**
 * Rebuilds, from a run's events alone, the exact request the model received on turn
 * `turnIndex` (1-based, as in `turn.started`; its first request, or the `requestInTurn`-th
 * when the turn asked again after `max_tokens`, `pause` or a cut tool call), and checks it
 * against the journal: the `context.compiled` and `model.requested` hashes and the SHA-256
 * of the bytes rebuilt from the manifest the deltas add up to must all agree, every
 * artifact must hash to its address, and the full text of every cut tool output (kept once,
 * in its tool event) must hash to the hash the request names; an output stored out of line
 * must be the artifact the request names (`cutOutputs` lists them; `reconstructRequest`
 * reads them back from the store). Throws REQUEST_MISMATCH naming the first check that
 * fails (with the event's seq); JOURNAL_CORRUPT when a delta does not apply or a message
 * or artifact the manifest names is missing; RUN_NOT_FOUND when the turn was never compiled.
 *
 * @example
 * ```ts
 * const events = [];
 * for await (const event of journal.read(scope)) events.push(event);
 * const { request, requestHash } = reconstructRequestFromEvents(events, 3);
 * ```
 */
export function reconstructRequestFromEvents(
  events: Iterable<JournalEvent>,
  turnIndex: number,
  requestInTurn = 0,
  history?: SessionHistory,
): ReconstructedRequest {
  let compiledInTurn = 0;
  const accumulator = new RunStateAccumulator();
  const artifacts = new Map<string, string>();
  let manifest: Manifest | undefined;
  let found: { seq: number; manifest: Manifest; requestHash: string; input: ContextInput; sourceSeqs: Map<string, number> } | undefined;
  for (const stored of events) {
    const event = accumulator.apply(stored);
    if (event.type === "run.started") {
      if (event.data.continues !== undefined && history === undefined) {
        throw new YokeError(
          "CONFIG_INVALID",
          `run ${event.runId} continues a session (runs ${event.data.continues.map((pin) => pin.runId).join(", ")}): rebuild it with reconstructRequest, which reads and checks them`,
          { details: { runId: event.runId } },
        );
      }
      // A child's shared items: journaled once, in its run.started, and named by hash in its manifests.
      for (const [hash, text] of forkArtifacts(event.data.parent?.fork)) artifacts.set(hash, text);
    } else if (event.type === "context.compiled") {
      const data = event.data;
      manifest = applyManifestDelta(manifest, parseManifestDelta(event, data, manifest?.requestHash ?? null));
      for (const artifact of data.artifacts ?? []) {
        const actual = sha256Hex(artifact.text);
        if (actual !== artifact.hash) {
          throw mismatch(`event ${event.seq} (context.compiled) carries an artifact whose content hashes to ${actual}, not to its address ${artifact.hash}`, {
            seq: event.seq,
            artifact: artifact.hash,
            actual,
          });
        }
        artifacts.set(artifact.hash, artifact.text);
      }
      const state = accumulator.peek();
      if (found === undefined && state.turns === turnIndex && compiledInTurn++ === requestInTurn) {
        // The input the runtime compiled this request from; transcript item `index` is message `index + 1`.
        const offered = turnTools(state);
        const base = contextInputFromRunState(state, {
          ...(offered === undefined ? {} : { toolRevisions: offered.revisions }),
          ...(offered === undefined || offered.remote.length === 0 ? {} : { remoteTools: offered.remote }),
        });
        const continued = withHistory(base, history, state);
        const input = offered === undefined ? continued : { ...continued, tools: offered.tools };
        // Own messages by their event here; an earlier run's by its event there (`cutOutputs` names that run).
        const sourceSeqs = new Map(input.transcript.map((source) => [source.id, seqOf(source.id, state.messageSeqs, history)] as const));
        found = { seq: event.seq, manifest, requestHash: data.requestHash, input, sourceSeqs };
      }
    } else if (event.type === "model.requested" && found !== undefined) {
      const data = event.data;
      if (data.requestHash !== found.requestHash) {
        throw mismatch(
          `event ${event.seq} (model.requested) records request ${data.requestHash}, but its context.compiled (event ${found.seq}) records ${found.requestHash}`,
          {
            seq: event.seq,
            expected: found.requestHash,
            actual: data.requestHash,
          },
        );
      }
      const rebuilt = rebuildRequest({ manifest: found.manifest, source: found.input, artifacts });
      if (!rebuilt.matches) {
        throw mismatch(
          `turn ${turnIndex}: the request rebuilt from the journal hashes to ${rebuilt.requestHash}, not to the ${data.requestHash} journaled in event ${event.seq} (model.requested); ${rebuilt.bytes.length === found.manifest.requestBytes ? "same length" : `${Buffer.byteLength(rebuilt.bytes, "utf8")} bytes, not ${found.manifest.requestBytes}`}`,
          { seq: event.seq, compiledSeq: found.seq, turnIndex, expected: data.requestHash, actual: rebuilt.requestHash },
        );
      }
      return {
        turnIndex,
        seq: found.seq,
        request: rebuilt.request,
        bytes: rebuilt.bytes,
        requestHash: rebuilt.requestHash,
        manifest: found.manifest,
        sourceSeqs: found.sourceSeqs,
        cutOutputs: cutOutputsOf(found.manifest, found.input.transcript, found.sourceSeqs, history?.origins),
      };
    }
  }
  const which = requestInTurn === 0 ? "" : ` (request ${requestInTurn} of the turn, counted from 0)`;
  throw new YokeError("RUN_NOT_FOUND", `the journal has no compiled request for turn ${turnIndex}${which}`, { details: { turnIndex, requestInTurn } });
}

/**
 * `reconstructRequestFromEvents` over a run's journal: the incident question "what exactly
 * did the model see on turn K?", answered from the journal file alone.
 *
 * @example
 * ```ts
 * const journal = await createSqliteJournal({ filename: "runs.sqlite" });
 * const { request, requestHash } = await reconstructRequest(journal, { tenantId: "acme", runId }, 3);
 * // a run with an artifact store: its large outputs are checked there too
 * const checked = await reconstructRequest(journal, scope, 3, { artifacts: createFileArtifactStore({ directory: "runs/artifacts" }) });
 * // the request that continued turn 3 after a pause or max_tokens
 * const continued = await reconstructRequest(journal, scope, 3, { requestInTurn: 1 });
 * ```
 */
export async function reconstructRequest(
  journal: JournalV1,
  scope: RunScope,
  turnIndex: number,
  options: ReconstructOptions = {},
): Promise<ReconstructedRequest> {
  const events: JournalEvent[] = [];
  for await (const event of journal.read(scope)) events.push(event);
  if (events.length === 0) throw new YokeError("RUN_NOT_FOUND", `no run ${scope.runId} for tenant ${scope.tenantId}`, { details: { ...scope } });
  const started = events[0]?.type === "run.started" ? (events[0].data as { continues?: ContinuedRun[] }) : undefined;
  const history = await loadHistory(journal, scope.tenantId, scope.runId, started?.continues);
  const reconstructed = reconstructRequestFromEvents(events, turnIndex, options.requestInTurn, history);
  await verifyOutOfLine(reconstructed, options.artifacts, { tenantId: scope.tenantId });
  return reconstructed;
}
