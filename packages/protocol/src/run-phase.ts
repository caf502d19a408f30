/**
 * Where a run stands, which fixes what the loop does next:
 * - `ready`: start the next turn (or stop at the turn limit);
 * - `awaiting_response`: a request is journaled but no response: call the model;
 * - `responded`: a response without tool calls is journaled: act on its stop reason;
 * - `tools_pending`: some proposed tool calls have no result yet;
 * - `finished`: the run has an outcome.
 */
export type RunPhase = "ready" | "awaiting_response" | "responded" | "tools_pending" | "finished";
