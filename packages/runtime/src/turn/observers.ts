import { observeCompiled } from "../compiled-context.js";
import { observeRunFacts } from "../loop/run-facts.js";
import type { TurnParticipant } from "./participant.js";

/** Loop detection, the verifier gate's progress, landed interrupts: folded from the same events as the live state. */
export const runFacts: TurnParticipant = {
  name: "run facts",
  folded: (context, event) => observeRunFacts(context.facts, event),
};

/** The compiled context follows the stored events: the next delta's base, the journaled artifacts, the last request. */
export const compiledContext: TurnParticipant = {
  name: "compiled context",
  committed: (context, commit) => {
    for (const event of commit.events) observeCompiled(context.compiled, event, commit.compiles);
  },
};

/** What was appended, for the logs. */
export const commitLog: TurnParticipant = {
  name: "commit log",
  committed: (context, { fromSeq, lastSeq, events }) => {
    context.logger.debug({ fromSeq, lastSeq, types: events.map((event) => event.type) }, "events appended");
    for (const event of events) {
      if (event.type === "run.completed") {
        const state = context.accumulator.peek();
        context.logger.info({ outcome: state.outcome?.status, turns: state.turns, seq: event.seq }, "run completed");
      }
    }
  },
};

/** The harness's `onEvent`: each stored event, in order, once the journal has it. */
export const eventRelay: TurnParticipant = {
  name: "onEvent",
  committed: (context, { events }) => {
    const { onEvent } = context.deps;
    if (onEvent) for (const event of events) onEvent(event);
  },
};
