import { canonicalJson } from "./canonical-json.js";
import type { YokeEvent, YokeEventDraft, YokeEventOf } from "./events.js";
import { invalid } from "./fold-invalid.js";
import { toolCallsOf, withParsedArguments } from "./model.js";
import type { JsonValue } from "./json-value.js";
import type { PendingToolCall, RunState } from "./run-state-types.js";

/** The events that open an action and carry its input: in full, or as `inputFromCall`. */
export type ActionOpeningEvent = YokeEventOf<"action.proposed" | "action.admitted" | "action.approval_requested">;

const OPENING = new Set<string>(["action.proposed", "action.admitted", "action.approval_requested"]);

/**
 * The pending call an event about `toolCallId` names: the one already started as `actionId`,
 * else the first of that id not yet an action, else the first of that id; -1 when none.
 * Tool-call ids are the model's and may repeat in a response; the fold and the writer of
 * `inputFromCall` find a call the same way.
 */
export function pendingCallIndex(calls: readonly PendingToolCall[], toolCallId: string, actionId: string | undefined): number {
  let index = actionId === undefined ? -1 : calls.findIndex((call) => call.toolCallId === toolCallId && call.started?.actionId === actionId);
  if (index < 0) index = calls.findIndex((call) => call.toolCallId === toolCallId && call.started === undefined && call.actionId === undefined);
  // Equivalent mutant (`pnpm mutate`: `index <= 0` here): an index 0 found above is a call with
  // this id, so the first call with the id is index 0 again.
  if (index < 0) index = calls.findIndex((call) => call.toolCallId === toolCallId);
  return index;
}

/**
 * A draft as it is journaled: an action's opening event whose `input` is exactly the arguments
 * of the call it names, as the fold holds them from the response (the same canonical JSON: a
 * journal keeps no key order), carries `inputFromCall: true` instead of a second copy. Any other draft, or
 * an input that differs from the call's arguments (schema defaults, transforms), is returned
 * as it is. `state`: the run's state just before the draft is folded.
 *
 * @example
 * ```ts
 * const written = drafts.map((draft) => { const out = withInputFromCall(accumulator.peek(), draft); accumulator.apply(toStored(draft)); return out; });
 * ```
 */
export function withInputFromCall(state: Pick<RunState, "phase" | "pendingToolCalls">, draft: YokeEventDraft): YokeEventDraft {
  if (!OPENING.has(draft.type) || state.phase !== "tools_pending") return draft;
  const data = draft.data as { toolCallId: string; input?: JsonValue; inputFromCall?: true };
  if (data.input === undefined || data.inputFromCall !== undefined) return draft;
  const index = pendingCallIndex(state.pendingToolCalls, data.toolCallId, undefined);
  const callArguments = index < 0 ? undefined : state.pendingToolCalls[index]!.arguments;
  if (callArguments === undefined) return draft;
  if (callArguments !== data.input && canonicalJson(callArguments) !== canonicalJson(data.input)) return draft;
  const { input: _input, ...rest } = data;
  return { ...draft, data: { ...rest, inputFromCall: true } } as YokeEventDraft;
}

/**
 * The event with its `input` given back from the call it names (`inputFromCall`), as the
 * fold reads it: exactly the event journals written before the marker hold. The same event
 * when it carries its input. Throws EVENT_INVALID for an event
 * with neither or both, or whose call is not pending or has no parsed arguments (a forged or
 * edited journal).
 */
export function withCallInput(state: Pick<RunState, "phase" | "pendingToolCalls">, event: YokeEvent): YokeEvent {
  if (!OPENING.has(event.type)) return event;
  const opening = event as ActionOpeningEvent;
  const { input, inputFromCall } = opening.data;
  if (inputFromCall === undefined) {
    if (input === undefined) throw invalid(event, "an action's input is missing (no input, no inputFromCall)");
    return event;
  }
  if (input !== undefined) throw invalid(event, "an action carries both input and inputFromCall");
  if (state.phase !== "tools_pending") throw invalid(event, `${event.type} in phase ${state.phase}`);
  const index = pendingCallIndex(state.pendingToolCalls, opening.data.toolCallId, undefined);
  const callArguments = index < 0 ? undefined : state.pendingToolCalls[index]!.arguments;
  if (callArguments === undefined) throw invalid(event, `inputFromCall names call ${opening.data.toolCallId}, which has no arguments in the response`);
  const { inputFromCall: _marker, ...data } = opening.data;
  return { ...opening, data: { ...data, input: callArguments } } as YokeEvent;
}

/**
 * Gives back actions' `inputFromCall` for a reader that reads a run's events in order without
 * folding them (`readYokeEvents`, an inspector past a broken fold): it keeps the calls of the
 * last response and finds a call as the fold does. Tolerant where the fold is strict: an event
 * whose call it has not read (a page that starts after the response, a forged reference) is
 * returned as it is, marker and all; fold the run (`RunStateAccumulator`) to have it refused.
 *
 * @example
 * ```ts
 * const reader = new CallInputReader();
 * for await (const stored of journal.read(scope)) show(reader.read(parseYokeEvent(stored)));
 * ```
 */
export class CallInputReader {
  #calls: PendingToolCall[] = [];
  // The last response, its calls not taken out yet: most readers never need them.
  #response: YokeEventOf<"model.responded"> | undefined;

  read(event: YokeEvent): YokeEvent {
    if (event.type === "model.responded") {
      this.#response = event;
      this.#calls = [];
      return event;
    }
    if (!OPENING.has(event.type)) return event;
    const calls = this.#pending();
    const opening = event as ActionOpeningEvent;
    const index = pendingCallIndex(calls, opening.data.toolCallId, undefined);
    let read: YokeEvent = event;
    if (opening.data.inputFromCall === true) {
      try {
        read = withCallInput({ phase: "tools_pending", pendingToolCalls: calls }, event);
      } catch {
        return event;
      }
    }
    if (index >= 0) calls[index] = { ...calls[index]!, actionId: opening.data.actionId };
    return read;
  }

  #pending(): PendingToolCall[] {
    const event = this.#response;
    if (event === undefined) return this.#calls;
    this.#response = undefined;
    const response = event.data.argumentsFromRaw === true ? withParsedArguments(event.data.response) : event.data.response;
    this.#calls = toolCallsOf(response).map((call, index) => ({ index, toolCallId: call.toolCallId, toolName: call.toolName, arguments: call.arguments }));
    return this.#calls;
  }
}
