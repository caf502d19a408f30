import type { VerifierV1 } from "@yoke/protocol";
import { defineVerifier, evidenceVerifier } from "@yoke/verifier";

const HEX = /^(?:artifact:)?sha256:([0-9a-fA-F]{64})$/;

/** The citation an evidence reference stands for, or undefined when it names nothing the journal can hold. */
function citationOf(ref: string): string | undefined {
  if (/^(action|call):[^\]\s]+$/.test(ref)) return `[${ref}]`;
  const hex = HEX.exec(ref)?.[1];
  return hex === undefined ? undefined : `[artifact:sha256:${hex.toLowerCase()}]`;
}

/**
 * The gate a child run's default result goes through: every evidence reference of every claim
 * must name something the child's own journal holds — `call:<toolCallId>` (a tool call the
 * child made; the id it saw with the result) or `action:<actionId>` that committed in the
 * child run, or an artifact `sha256:<hex>` its events hold (`@yoke/verifier`'s
 * `evidenceVerifier` decides each), or `parent:<id>`, an item its parent shared with it (its
 * `run.started.parent.fork`). A reference of another form, or one that does not check
 * out, fails with every such reference named and `retry: true`: the child is told and may do
 * the work or cite what it did; past the harness's `verifierRetries` the child ends
 * `verification_failed` and the spawn fails SUBAGENT_FAILED. Replay-safe: it reads events only.
 */
export function claimsEvidenceVerifier(): VerifierV1 {
  const id = "subagent-claims-evidence";
  return defineVerifier({
    id,
    kind: "evidence",
    replaySafe: true,
    description: "every claim's evidence is a tool call, action or artifact the child's journal holds",
    async verify(input) {
      const claims = (input.answer.output as { claims?: { evidence?: { ref?: unknown }[] }[] } | undefined)?.claims ?? [];
      const cited = claims.flatMap((claim) => (claim.evidence ?? []).map((evidence) => String(evidence.ref)));
      const given = new Set((input.state.parent?.fork?.evidence ?? []).map((item) => item.id));
      const notGiven = cited.filter((ref) => ref.startsWith("parent:") && !given.has(ref));
      if (notGiven.length > 0) {
        const listed = given.size === 0 ? "your parent shared nothing" : `your parent shared ${[...given].join(", ")}`;
        return {
          passed: false,
          retry: true,
          reason: `evidence ${notGiven.map((ref) => JSON.stringify(ref)).join(", ")} names parent items you were not given; ${listed}`,
          details: { notGiven },
        };
      }
      const refs = cited.filter((ref) => !given.has(ref));
      const unreadable = refs.filter((ref) => citationOf(ref) === undefined);
      if (unreadable.length > 0) {
        return {
          passed: false,
          retry: true,
          reason: `evidence must name a tool call (call:<toolCallId>), an action (action:<actionId>) or an artifact (sha256:<hex>) of this run, or an item your parent shared (parent:<id>); these do not: ${unreadable.map((ref) => JSON.stringify(ref)).join(", ")}`,
          details: { unreadable },
        };
      }
      if (refs.length === 0) return { passed: true, details: cited.length === 0 ? { citations: [] } : { citations: [], shared: cited } };
      const text = refs.map((ref) => citationOf(ref)!).join(" ");
      const {
        verifierId: _id,
        kind: _kind,
        ...verdict
      } = await evidenceVerifier({ id, minCitations: 1 }).verify({ ...input, answer: { ...input.answer, text } });
      return verdict;
    },
  });
}
