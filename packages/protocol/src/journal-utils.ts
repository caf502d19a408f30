/**
 * @yoke/protocol/journal-utils — the rules a journal's events obey, for whoever writes,
 * stores or reads them outside the @yoke packages (a journal store, a scheduler, an
 * inspector): the event-type and key-id patterns, the hash formats of the chain, the
 * canonical-JSON depth limit, the id kinds and their schema, the run outcome schema, and the
 * action state machine every run's `action.*` events follow (`transitionAction` is the one
 * legal-transition function; a writer checks each draft with it before appending, a fold
 * refuses a journal that breaks it).
 *
 * Semver-covered like the root entry: a breaking change here is a major release of
 * `@yoke/protocol`. How a store stores (its driver) is its own business; these are the
 * semantics every store shares.
 *
 * @example
 * ```ts
 * import { EVENT_TYPE_PATTERN, JOURNAL_KEY_ID_PATTERN, transitionAction } from "@yoke/protocol/journal-utils";
 *
 * if (!EVENT_TYPE_PATTERN.test(draft.type)) throw new YokeError("JOURNAL_INVALID_APPEND", `bad type ${draft.type}`);
 * const next = transitionAction(status, { type: "action.executing" });
 * if (!next.ok) throw new YokeError("ACTION_TRANSITION_ILLEGAL", next.reason);
 * ```
 */
export { ACTION_EVENT_TYPES, ACTION_STATES, RECONCILE_VERDICTS, isFinalActionState, transitionAction } from "./actions.js";
export type { ActionEventType, ActionTransitionInput, ActionTransitionResult } from "./actions.js";
export { CANONICAL_JSON_MAX_DEPTH } from "./canonical-json.js";
export { ChainHashSchema, EVENT_TYPE_PATTERN, HashSchema, JOURNAL_KEY_ID_PATTERN, OutcomeSchema } from "./events.js";
export { ID_KINDS, idSchema } from "./ids.js";
