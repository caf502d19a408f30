// Reads a run's stored events for the inspector: through the run-state fold while it holds, and
// event by event once it breaks, so a damaged run still shows what it holds.
import {
  type ActionOpeningEvent,
  CallInputReader,
  type JournalEvent,
  type RunState,
  RunStateAccumulator,
  YokeError,
  type YokeEvent,
  parseYokeEvent,
} from "@yoke/protocol";
import type { InspectProblem } from "./run-view.js";

export class InspectReader {
  readonly #accumulator = new RunStateAccumulator();
  #foldBroken = false;
  // Read by the fold's side too: after a broken fold, an action's input is given back from it.
  readonly #calls = new CallInputReader();

  constructor(private readonly problems: InspectProblem[]) {}

  /** The event, or undefined (its problem listed) when it is not a Yoke event. */
  read(stored: JournalEvent): YokeEvent | undefined {
    if (!this.#foldBroken) {
      let folded: YokeEvent | undefined;
      try {
        folded = this.#accumulator.apply(stored);
      } catch (error) {
        this.#foldBroken = true;
        this.#problem(stored.seq, error);
      }
      if (folded !== undefined) {
        this.#calls.read(folded);
        return folded;
      }
    }
    try {
      const event = this.#calls.read(parseYokeEvent(stored));
      if (isActionOpening(event) && event.data.input === undefined) {
        this.problems.push({
          seq: event.seq,
          message: `event ${event.seq} (${event.type}): inputFromCall names call ${event.data.toolCallId}, not in the last response`,
        });
      }
      return event;
    } catch (error) {
      this.#problem(stored.seq, error);
      return undefined;
    }
  }

  /** The folded state, if the fold took any event. */
  get state(): RunState | undefined {
    return this.#accumulator.length > 0 ? this.#accumulator.peek() : undefined;
  }

  #problem(seq: number, error: unknown): void {
    this.problems.push({ seq, message: YokeError.isInstance(error) ? error.message : String(error) });
  }
}

function isActionOpening(event: YokeEvent): event is ActionOpeningEvent {
  return event.type === "action.admitted" || event.type === "action.proposed" || event.type === "action.approval_requested";
}
