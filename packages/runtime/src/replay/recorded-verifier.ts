import type { VerifierV1, VerifierVerdict } from "@yoke/protocol";
import type { ReplayTape } from "./replay-tape.js";

/**
 * A verifier whose run the record finished gives its recorded verdict, as a tool gives its
 * recorded outcome; with `rerun`, one declared safe to re-run runs again and its verdict is
 * compared. A run the record never finished (the recorded process died in it) stops the
 * replayed process there too.
 */
export function recordedVerifier(verifier: VerifierV1, tape: ReplayTape, rerun: boolean): VerifierV1 {
  return {
    ...verifier,
    async verify(input) {
      const events = tape.events(tape.active);
      const length = tape.lengthOf(tape.active);
      const started = events.findLast((event) => event.seq < length && event.type === "verifier.started");
      const runId = (started?.data as { verifierRunId?: string } | undefined)?.verifierRunId;
      const finished = events.find(
        (event) => event.seq >= length && event.type === "verifier.finished" && (event.data as { verifierRunId: string }).verifierRunId === runId,
      );
      const between = finished === undefined ? [] : events.slice(length, finished.seq);
      if (finished === undefined || between.some((event) => event.type === "verifier.started"))
        return tape.crash(`no recorded verdict of verifier ${verifier.id}`);
      if (rerun && verifier.replaySafe) return verifier.verify(input);
      return (finished.data as unknown as { verdict: VerifierVerdict }).verdict;
    },
  };
}
