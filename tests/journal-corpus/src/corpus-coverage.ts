// What the historical corpus covers: the event types and outcome statuses its journals hold,
// against every one today's protocol defines.
import { YOKE_EVENT_TYPES, type JournalEvent } from "@yoke/protocol";
import { OutcomeSchema } from "@yoke/protocol/journal-utils";

/** Every outcome status the protocol's closed set holds. */
export const OUTCOME_STATUSES: readonly string[] = OutcomeSchema.options.map((option) => option.shape.status.value);

export interface Coverage {
  readonly eventTypes: ReadonlySet<string>;
  readonly outcomes: ReadonlySet<string>;
}

export function coverageOf(events: Iterable<JournalEvent>): Coverage {
  const eventTypes = new Set<string>();
  const outcomes = new Set<string>();
  for (const event of events) {
    eventTypes.add(event.type);
    if (event.type === "run.completed") outcomes.add((event.data as { outcome: { status: string } }).outcome.status);
  }
  return { eventTypes, outcomes };
}

/** One message per event type or outcome status the protocol defines and no corpus journal holds, saying what to add. */
export function uncovered(coverage: Coverage, eventTypes: readonly string[] = YOKE_EVENT_TYPES, outcomes: readonly string[] = OUTCOME_STATUSES): string[] {
  const howTo =
    "add a golden scenario that reaches it (src/scenarios-*.ts, registered in src/scenarios.ts), record it (YOKE_CORPUS_RECORD=1), " +
    'and freeze its journal into a new src/__fixtures__/historical/<release-dir>/ (node capture/freeze-historical.ts; see the README, "The historical corpus")';
  return [
    ...eventTypes.filter((type) => !coverage.eventTypes.has(type)).map((type) => `event type "${type}" is in no historical journal: ${howTo}`),
    ...outcomes.filter((status) => !coverage.outcomes.has(status)).map((status) => `outcome "${status}" ends no historical run: ${howTo}`),
  ];
}
