import type { JsonValue, Outcome, StopReason, ToolResultEnvelope, UserPart } from "@yoke/protocol";
import type { RunResult, WaitingRunResult } from "../run-result.js";

/**
 * A part of a run's live output (`harness.stream`). Two kinds:
 *
 * - Deltas (`text-delta`, `reasoning-delta`, `tool-call-start`, `tool-call-delta`, `dropped`)
 *   are ephemeral: what the provider streams while a model call is in flight, never journaled,
 *   never replayed, and dropped (counted by a `dropped` part) when the consumer falls behind.
 * - Durable parts carry `seq`, the journal position of the event they are read from, and are
 *   produced only after that event is durable. They are never dropped: a consumer that falls
 *   behind reads them from the journal, so a resumed or reattached stream replays them first.
 *
 * The last part is `result` (the run's result, as `start` / `resume` return it) or `error`
 * (what they threw).
 */
export type RunStreamPart = RunStreamDelta | RunStreamDurablePart | RunStreamEnd;

/** What a model call streams, tagged with the turn and attempt it belongs to. */
export type RunStreamDelta =
  | { readonly type: "text-delta"; readonly turnId: string; readonly attempt: number; readonly text: string }
  | { readonly type: "reasoning-delta"; readonly turnId: string; readonly attempt: number; readonly text: string }
  | { readonly type: "tool-call-start"; readonly turnId: string; readonly attempt: number; readonly toolCallId: string; readonly toolName: string }
  | { readonly type: "tool-call-delta"; readonly turnId: string; readonly attempt: number; readonly toolCallId: string; readonly argumentsDelta: string }
  /** `count` deltas were not delivered here: the consumer's buffer was full. The durable parts after them say what happened. */
  | { readonly type: "dropped"; readonly count: number };

/** A tool call as the journaled response holds it: `rawArguments` is the text the model wrote (the deltas' concatenation). */
export interface StreamedToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly rawArguments: string;
  /** The parse of `rawArguments`; absent when it is not JSON or was cut. */
  readonly input?: JsonValue;
}

/** Parts read from journaled events, each once the event is durable. */
export type RunStreamDurablePart =
  | { readonly type: "run-started"; readonly seq: number; readonly runId: string; readonly sessionId: string; readonly task: string }
  /** Text added to the conversation by a person (`operator`, `interrupt`) or the runtime (a verifier's note, …). */
  /** Input added to the run: its text, and its images and files (artifact references or URLs) when it has any. */
  | { readonly type: "input"; readonly seq: number; readonly source: string; readonly text: string; readonly media?: readonly UserPart[] }
  | {
      readonly type: "model-response";
      readonly seq: number;
      readonly turnId: string;
      /** The response's text parts, joined: what the text deltas of its call add up to. */
      readonly text: string;
      readonly reasoning: string;
      readonly toolCalls: readonly StreamedToolCall[];
      readonly stopReason: StopReason;
    }
  /** A model call attempt failed; `retrying`: another attempt follows (its deltas start again). */
  | {
      readonly type: "model-failed";
      readonly seq: number;
      readonly turnId: string;
      readonly attempt: number;
      readonly code: string;
      readonly message: string;
      readonly retrying: boolean;
    }
  /** A call was answered: its action's outcome, or its refusal (`rejected`) before it ran. */
  | {
      readonly type: "tool-result";
      readonly seq: number;
      readonly toolCallId: string;
      readonly toolName: string;
      readonly actionId?: string;
      readonly rejected: boolean;
      readonly result: ToolResultEnvelope;
    }
  | {
      readonly type: "approval-requested";
      readonly seq: number;
      readonly approvalId: string;
      readonly actionId: string;
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: JsonValue | undefined;
      readonly reason: string | undefined;
    }
  | {
      readonly type: "approval-decided";
      readonly seq: number;
      readonly approvalId: string;
      readonly actionId: string;
      readonly toolCallId: string;
      readonly approved: boolean;
      readonly approver: string;
      readonly reason?: string;
    }
  /** The run waits for a person (a refusal, a content filter, an escalation). An approval wait is its `approval-requested` parts. */
  | { readonly type: "run-waiting"; readonly seq: number; readonly kind: string; readonly reason: string }
  | { readonly type: "run-ended"; readonly seq: number; readonly outcome: Outcome }
  /** The run stopped short of an outcome (resumable): the error that stopped it. */
  | { readonly type: "run-failed"; readonly seq: number; readonly code: string; readonly message: string; readonly retryable: boolean };

/** The stream's last part. */
export type RunStreamEnd = { readonly type: "result"; readonly result: RunResult | WaitingRunResult } | { readonly type: "error"; readonly error: unknown };

/** Whether a part is one of the ephemeral deltas (dropped when the consumer falls behind). */
export function isDelta(part: RunStreamPart): part is RunStreamDelta {
  return (
    part.type === "text-delta" ||
    part.type === "reasoning-delta" ||
    part.type === "tool-call-start" ||
    part.type === "tool-call-delta" ||
    part.type === "dropped"
  );
}
