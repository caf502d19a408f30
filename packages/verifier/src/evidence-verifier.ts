import { type JsonValue, type VerifierV1, YokeError } from "@yoke/protocol";
import { type Citation, parseCitations } from "./citations.js";
import { defineVerifier } from "./define-verifier.js";
import { callKey, journalEvidence } from "./journal-evidence.js";

export interface EvidenceVerifierOptions {
  readonly id: string;
  /** Citations that must check out. Default 1: an answer with none is "completion claimed without evidence". */
  readonly minCitations?: number;
  /** A cited action must have committed with a receipt (`action.committed.receipt` or `action.reconciled.receipt`). Default false. */
  readonly requireReceipt?: boolean;
  readonly description?: string;
}

/** How one citation checked out. */
export type CitationStatus = "ok" | "missing" | "uncommitted" | "no_receipt" | "other_run" | "malformed";

/** One entry of an evidence verdict's `details.citations`. */
export interface CheckedCitation {
  readonly citation: string;
  readonly kind: Citation["kind"];
  readonly id: string;
  readonly status: CitationStatus;
  /** For an action of this run: where it stands (`committed`, `failed`, `uncertain`, `compensated`, …). */
  readonly state?: string;
  readonly toolName?: string;
  readonly receipt?: JsonValue;
  /** For `other_run`: the runs that hold it. */
  readonly runs?: string[];
}

const SYNTAX = "cite an action as [call:<toolCallId>] (the id of the tool call you made) or [action:<actionId>], or an artifact as [artifact:sha256:<hex>]";

/**
 * The answer must cite evidence the journal holds. Citations in `answer.text`:
 * `[action:<actionId>]` (or `[call:<toolCallId>]`, the id of the tool call that proposed it, which
 * is what the model saw) checks out when that action of this run (same run and tenant) is
 * committed — `action.committed`, or `action.reconciled` with verdict `applied` — and was not
 * compensated since; `[artifact:sha256:<hex>]` when the digest is one the run's events hold (a
 * `context.compiled` artifact, or a tool result's `truncation.artifact` / `artifactHash`).
 *
 * Fails (`retry: true`: the model can cite, or do the work) when the answer cites nothing
 * ("completion claimed without evidence"), when fewer than `minCitations` check out, or when
 * any citation does not: the reason names every one that is missing, uncommitted (with its
 * state: failed, uncertain, compensated, still executing, …), of another run, malformed, or
 * (with `requireReceipt`) committed without a receipt. `details.citations` lists each
 * citation with its status. Replay-safe: it reads the events only.
 *
 * @example
 * ```ts
 * const evidence = evidenceVerifier({ id: "cites-evidence" });
 * // passes for "Refunded the order [action:action_12]." once action_12 committed in this run
 * ```
 */
export function evidenceVerifier(options: EvidenceVerifierOptions): VerifierV1 {
  const { id } = options;
  const minCitations = options.minCitations ?? 1;
  const requireReceipt = options.requireReceipt ?? false;
  if (!Number.isInteger(minCitations) || minCitations < 1) throw new YokeError("CONFIG_INVALID", `verifier "${id}": minCitations must be an integer ≥ 1`);
  return defineVerifier({
    id,
    kind: "evidence",
    replaySafe: true,
    description: options.description ?? `the answer cites at least ${minCitations} action receipt(s) or artifact(s) the journal holds`,
    async verify({ answer, events, runId, tenantId }) {
      const citations = parseCitations(answer.text);
      if (citations.length === 0) {
        return { passed: false, retry: true, reason: `completion claimed without evidence: the answer cites nothing; ${SYNTAX}`, details: { citations: [] } };
      }
      const evidence = journalEvidence(events);
      const ours = (holder: { runId: string; tenantId: string }) => holder.runId === runId && holder.tenantId === tenantId;
      const checked = citations.map((citation): CheckedCitation => {
        const base = { citation: citation.text, kind: citation.kind, id: citation.id };
        if (citation.kind === "malformed") return { ...base, status: "malformed" };
        if (citation.kind === "artifact") {
          const holders = evidence.artifacts.get(citation.id) ?? [];
          if (holders.some(ours)) return { ...base, status: "ok" };
          return holders.length === 0 ? { ...base, status: "missing" } : { ...base, status: "other_run", runs: holders.map((holder) => holder.runId) };
        }
        // A call citation names the action by the tool call that proposed it in this run.
        const actionId = citation.kind === "call" ? evidence.calls.get(callKey(tenantId, runId, citation.id)) : citation.id;
        if (actionId === undefined) return { ...base, status: "missing" };
        const records = evidence.actions.get(actionId) ?? [];
        const record = records.find(ours);
        if (record === undefined) {
          return records.length === 0 ? { ...base, status: "missing" } : { ...base, status: "other_run", runs: records.map((other) => other.runId) };
        }
        const facts = {
          state: record.state,
          ...(record.toolName === undefined ? {} : { toolName: record.toolName }),
          ...(record.receipt === undefined ? {} : { receipt: record.receipt }),
        };
        if (record.state !== "committed") return { ...base, status: "uncommitted", ...facts };
        if (requireReceipt && record.receipt === undefined) return { ...base, status: "no_receipt", ...facts };
        return { ...base, status: "ok", ...facts };
      });
      const bad = checked.filter((entry) => entry.status !== "ok");
      const good = checked.length - bad.length;
      const details = { citations: checked as unknown as JsonValue };
      if (bad.length === 0 && good >= minCitations) return { passed: true, details };
      const problems = bad.map(describe);
      if (good < minCitations) problems.push(`${good} citation(s) check out, at least ${minCitations} needed`);
      return { passed: false, retry: true, reason: `the answer's evidence does not check out: ${problems.join("; ")}`, details };
    },
  });
}

function describe(entry: CheckedCitation): string {
  switch (entry.status) {
    case "missing":
      return `${entry.citation} is not in the journal`;
    case "uncommitted":
      return `${entry.citation} did not commit (it is ${entry.state})`;
    case "no_receipt":
      return `${entry.citation} committed without a receipt`;
    case "other_run":
      return `${entry.citation} belongs to another run (${entry.runs!.join(", ")})`;
    case "malformed":
      return `${entry.citation} is malformed (${SYNTAX})`;
    default:
      return entry.citation;
  }
}
