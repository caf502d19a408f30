import type { TurnParticipant } from "./participant.js";
import { TURN_PARTICIPANTS } from "./participants.js";

type HookName = Exclude<keyof TurnParticipant, "name">;
type Hook<K extends HookName> = NonNullable<TurnParticipant[K]>;

/** The participants that have hook `key`, each's implementation, in list order. */
function collect<K extends HookName>(key: K): readonly Hook<K>[] {
  const hooks: Hook<K>[] = [];
  for (const participant of TURN_PARTICIPANTS) {
    const hook = participant[key];
    if (hook !== undefined) hooks.push(hook.bind(participant) as Hook<K>);
  }
  return hooks;
}

/**
 * Each hook of the participant list, taken once, in list order. The loop calls these
 * functions rather than looking each hook up on every participant: a turn folds and stores
 * a dozen events, each seen by every participant, and participants of fourteen shapes make
 * every such lookup a slow, megamorphic one.
 */
export const HOOKS = {
  boundary: collect("boundary"),
  folded: collect("folded"),
  beforeRequest: collect("beforeRequest"),
  admit: collect("admit"),
  gate: collect("gate"),
  settle: collect("settle"),
  committed: collect("committed"),
} as const;
