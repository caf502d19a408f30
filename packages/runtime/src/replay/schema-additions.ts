/**
 * A field today's code journals that an older release did not: an event of `type` recorded
 * before `since` lacks `path`, and a replay through the current code writes it. Such a record
 * is still the same run; only a declared addition makes "recorded absent, replayed present"
 * compatible. Any other absent/present difference, and any difference in value when both sides
 * hold the field, is a divergence.
 */
export interface SchemaAddition {
  /** The event type whose data gained the field. */
  readonly type: string;
  /** Where the field sits, as a divergence names it (`data.outcome.remaining`). */
  readonly path: string;
  /** The commit that began to journal it: records made before it lack the field. */
  readonly since: string;
  readonly why: string;
}

const INFLUENCE_WHY = "what could have steered the decision to make the call, journaled with every policy decision";
const influenceOn = (type: string): SchemaAddition => ({ type, path: "data.influence", since: "0b18196", why: INFLUENCE_WHY });

/** Every field added to an event since schema 1 was first written, that a replay may find absent in the record. */
export const SCHEMA_ADDITIONS: readonly SchemaAddition[] = [
  influenceOn("action.admitted"),
  influenceOn("action.authorized"),
  influenceOn("action.approval_requested"),
  influenceOn("tool.rejected"),
  {
    type: "run.completed",
    path: "data.outcome.requested",
    since: "2ce27f1",
    why: "a budget_exhausted outcome names what the refused reservation asked for",
  },
  {
    type: "run.completed",
    path: "data.outcome.remaining",
    since: "2ce27f1",
    why: "a budget_exhausted outcome names what was left of the limit when it was refused",
  },
];

/** Whether `additions` declare the field at `path` of a `type` event as added since a record could have been made. */
export function isDeclaredAddition(additions: readonly SchemaAddition[], type: string, path: string): boolean {
  return additions.some((addition) => addition.type === type && addition.path === path);
}
