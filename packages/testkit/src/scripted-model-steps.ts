import type {
  JsonValue,
  ModelRequest,
  ProviderMetadata,
  ReasoningPart,
  RefusalPart,
  ServerToolCallPart,
  ServerToolResultPart,
  StopReason,
  TextPart,
  Usage,
  YokeError,
} from "@yoke/protocol";

/**
 * A tool call in a script. Leave `toolCallId` out to get the model's next `call_N`; leave
 * `rawArguments` out to send `arguments` as JSON; leave `arguments` out to have it parsed
 * from `rawArguments` (an unparsable text then carries `argumentsError`, like a real adapter).
 */
export interface ScriptedToolCallPart {
  type: "tool-call";
  toolName: string;
  toolCallId?: string;
  rawArguments?: string;
  arguments?: JsonValue;
  argumentsError?: string;
  providerMetadata?: ProviderMetadata;
}

/**
 * A tool call the output limit cut off, in a script (a `tool-call-truncated` part). Leave
 * `toolCallId` out to get the model's next `call_N`, like a complete call.
 */
export interface ScriptedTruncatedToolCallPart {
  type: "tool-call-truncated";
  toolName: string;
  toolCallId?: string;
  rawArguments: string;
  providerMetadata?: ProviderMetadata;
}

/** What a scripted answer may contain: every assistant part, with tool-call ids optional. */
export type ScriptedPart =
  | TextPart
  | ReasoningPart
  | RefusalPart
  | ServerToolCallPart
  | ServerToolResultPart
  | ScriptedToolCallPart
  | ScriptedTruncatedToolCallPart;

/**
 * One scripted answer: a `ModelResponse` whose every field but the content has a default
 * (provider `scripted`, model `scripted-1`, zero usage, stop reason `tool_use` when there
 * are tool calls and `end_turn` otherwise).
 *
 * @example
 * ```ts
 * const step: ScriptedResponse = { content: [{ type: "text", text: "done" }], usage: { outputTokens: 3 } };
 * ```
 */
export interface ScriptedResponse {
  content?: ScriptedPart[];
  stopReason?: StopReason;
  rawStopReason?: string;
  usage?: Partial<Usage>;
  id?: string;
  provider?: string;
  model?: string;
  providerMetadata?: ProviderMetadata;
  warnings?: string[];
  /** Give every call of this step without an explicit id one shared auto id (a fault). */
  sameToolCallId?: boolean;
}

/** A step that makes `generate` reject with `error` (e.g. PROVIDER_RATE_LIMITED). */
export interface ScriptedError {
  error: YokeError;
}

/** A step computed from the request it answers, so a test can assert on that request. */
export type ScriptedStepFunction = (request: ModelRequest, callIndex: number) => ScriptedResponse | ScriptedError | Promise<ScriptedResponse | ScriptedError>;

/** What one `generate` call consumes from a scripted model's queue. */
export type ScriptedStep = ScriptedResponse | ScriptedError | ScriptedStepFunction;

/** A call for `callTools`: `id` pins the tool-call id instead of the next `call_N`. */
export interface ToolCallSpec {
  name: string;
  args?: JsonValue;
  id?: string;
}

function toolCall(spec: ToolCallSpec): ScriptedToolCallPart {
  const part: ScriptedToolCallPart = { type: "tool-call", toolName: spec.name, arguments: spec.args ?? {} };
  if (spec.id !== undefined) part.toolCallId = spec.id;
  return part;
}

/**
 * A final answer: text and stop reason `end_turn`.
 *
 * @example
 * ```ts
 * createScriptedModel([say("all done")]);
 * ```
 */
export function say(text: string): ScriptedResponse {
  return { content: [{ type: "text", text }], stopReason: "end_turn" };
}

/**
 * Tool calls in proposal order, stop reason `tool_use`; ids are `call_1`, `call_2`, … unless
 * given.
 *
 * @example
 * ```ts
 * callTools([{ name: "read_file", args: { path: "a.txt" } }, { name: "list", args: {} }]);
 * ```
 */
export function callTools(calls: readonly ToolCallSpec[], text?: string): ScriptedResponse {
  const content: ScriptedResponse["content"] = text === undefined ? [] : [{ type: "text", text }];
  content.push(...calls.map(toolCall));
  return { content, stopReason: "tool_use" };
}

/** A call whose arguments are not JSON: `rawArguments` is `rawText`, `arguments` absent, `argumentsError` set. */
export function malformedToolArguments(name: string, rawText: string): ScriptedResponse {
  return { content: [{ type: "tool-call", toolName: name, rawArguments: rawText }], stopReason: "tool_use" };
}

/** A call to a tool the harness does not have (a name the model made up). */
export function unknownTool(name: string, args: JsonValue = {}): ScriptedResponse {
  return callTools([{ name, args }]);
}

/**
 * Several calls sharing one tool-call id (the next `call_N`, or `id`): the runtime must run
 * the first and reject the repeats.
 */
export function duplicateToolCallIds(calls: readonly ToolCallSpec[], id?: string): ScriptedResponse {
  const step = callTools(calls.map((call) => ({ name: call.name, args: call.args ?? {}, ...(id === undefined ? {} : { id }) })));
  return id === undefined ? { ...step, sameToolCallId: true } : step;
}

/**
 * A refusal, as adapters report one: a `refusal` part (never text) and stop reason `refusal`.
 *
 * @example
 * ```ts
 * createScriptedModel([refuse("I can't help with that.")]); // the run ends `refused` with that reason
 * ```
 */
export function refuse(text: string): ScriptedResponse {
  return { content: [{ type: "refusal", text }], stopReason: "refusal" };
}

/** Output cut at the token limit: text and stop reason `max_tokens`. */
export function truncated(text: string): ScriptedResponse {
  return { content: [{ type: "text", text }], stopReason: "max_tokens" };
}

/**
 * A tool call cut by the output limit: stop reason `max_tokens` and a `tool-call-truncated`
 * part holding the `rawArguments` written before the cut (after `text`, when given). `calls`
 * are complete calls proposed before it in the same response.
 *
 * @example
 * ```ts
 * createScriptedModel([truncatedToolCall("write_file", '{"path":"a.txt","text":"Once upon'), callTools([{ name: "write_file", args }])]);
 * ```
 */
export function truncatedToolCall(
  name: string,
  rawArguments: string,
  options: { text?: string; id?: string; calls?: readonly ToolCallSpec[] } = {},
): ScriptedResponse {
  const content: ScriptedPart[] = options.text === undefined ? [] : [{ type: "text", text: options.text }];
  content.push(...(options.calls ?? []).map(toolCall));
  const part: ScriptedTruncatedToolCallPart = { type: "tool-call-truncated", toolName: name, rawArguments };
  if (options.id !== undefined) part.toolCallId = options.id;
  content.push(part);
  return { content, stopReason: "max_tokens" };
}

/** A step that makes `generate` reject with `error`. */
export function failWith(error: YokeError): ScriptedError {
  return { error };
}
