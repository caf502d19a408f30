import {
  JsonValueSchema,
  describeIssues,
  parseToolArguments,
  validateWithSchema,
  type JsonValue,
  type ToolCallPart,
  type AnyToolDeclaration,
} from "@yoke/protocol";
import type { AnyTool } from "./define-tool.js";

/**
 * Why a proposed call is not run. Each code goes back to the model in an error result. The
 * last four come from a run's pinned tools (a registry): a pinned tool not offered to the
 * turn, one whose live definition drifted from the pinned revision (and no rule re-admits
 * it), one withdrawn from the registry, one no source can run any more.
 */
export type RejectionCode =
  | "TOOL_UNKNOWN"
  | "TOOL_INPUT_INVALID"
  | "TOOL_INPUT_TOO_LARGE"
  | "TOOL_DUPLICATE_CALL_ID"
  | "TOOL_CALL_LIMIT"
  | "TOOL_NOT_OFFERED"
  | "TOOL_DRIFTED"
  | "TOOL_WITHDRAWN"
  | "TOOL_REVISION_UNAVAILABLE";

/** What a tool name resolves to for one call: the declaration to run (and the digest of its revision), or why not. */
export type ToolLookup =
  | { readonly kind: "tool"; readonly tool: AnyToolDeclaration; readonly revision?: string }
  | { readonly kind: "reject"; readonly code: RejectionCode; readonly message: string };

/** The verdict on one proposed call. */
export type CallDecision =
  | {
      readonly kind: "start";
      readonly tool: AnyToolDeclaration;
      /** The digest of the tool revision the call runs, when the run pinned its tools (a registry). */
      readonly revision?: string;
      /** The parsed input, as the handler receives it. */
      readonly value: unknown;
      /** What `action.admitted` records: the parsed input when it is JSON, else the model's arguments. */
      readonly input: JsonValue;
    }
  | { readonly kind: "reject"; readonly code: RejectionCode; readonly message: string };

/**
 * Judges a response's tool calls, in proposal order. Deterministic: the same calls and tools
 * give the same verdicts, which is what lets a resume re-derive a call's input from the
 * journaled response. Calls past `maxCalls` (in proposal order, whatever they are) are
 * rejected with TOOL_CALL_LIMIT; `maxCalls` is the run's pinned limit, so a resume judges
 * the same way. Of the rest, a repeated tool-call id is rejected for every repeat (the first
 * occurrence is judged on its merits); then unknown tools, unparsable arguments and input
 * that fails the tool's schema (its own validator, awaited: Standard Schema validators may be
 * asynchronous; calls are judged one after another, in proposal order).
 */
export async function validateCalls(calls: readonly ToolCallPart[], tools: ReadonlyMap<string, AnyTool>, maxCalls?: number): Promise<CallDecision[]> {
  return judgeCalls(calls, async (name) => lookupIn(tools, name), maxCalls);
}

/** A tool of `tools` by name, or TOOL_UNKNOWN naming the available tools. */
export function lookupIn(tools: ReadonlyMap<string, AnyTool>, name: string): ToolLookup {
  const tool = tools.get(name);
  if (tool !== undefined) return { kind: "tool", tool };
  const names = [...tools.keys()].sort().join(", ") || "(none)";
  return { kind: "reject", code: "TOOL_UNKNOWN", message: `there is no tool named ${JSON.stringify(name)}; the available tools are: ${names}` };
}

/**
 * `validateCalls` with the tools looked up by `lookup` (awaited once per call that gets that
 * far, in proposal order): how a run with pinned tools judges its calls.
 */
export async function judgeCalls(calls: readonly ToolCallPart[], lookup: (name: string) => Promise<ToolLookup>, maxCalls?: number): Promise<CallDecision[]> {
  const seen = new Set<string>();
  const decisions: CallDecision[] = [];
  for (const [index, call] of calls.entries()) decisions.push(await judge(call, index));
  return decisions;

  async function judge(call: ToolCallPart, index: number): Promise<CallDecision> {
    if (maxCalls !== undefined && index >= maxCalls) {
      return reject(
        "TOOL_CALL_LIMIT",
        `this response proposed ${calls.length} tool calls and a turn runs at most ${maxCalls}, so this call (number ${index + 1}) was not run; propose fewer calls per response, the most important first`,
      );
    }
    if (seen.has(call.toolCallId)) {
      return reject(
        "TOOL_DUPLICATE_CALL_ID",
        `tool call id ${JSON.stringify(call.toolCallId)} was already used by an earlier call in this response, so this call was not run; give every call its own id`,
      );
    }
    seen.add(call.toolCallId);
    const found = await lookup(call.toolName);
    if (found.kind === "reject") return found;
    return validateCall(call, found.tool, found.revision);
  }
}

/** Parses and validates one call's arguments for `tool` (the declaration of revision `revision`, when given). */
export async function validateCall(call: ToolCallPart, tool: AnyToolDeclaration, revision?: string): Promise<CallDecision> {
  let args: JsonValue;
  if (call.omitted !== undefined) {
    return reject(
      "TOOL_INPUT_TOO_LARGE",
      `the arguments for ${tool.name} were ${call.omitted.bytes} bytes, more than the ${call.omitted.limit} this run keeps for one call, so the call was not run and its arguments were not kept; send smaller arguments (large content in several calls, or by reference)`,
    );
  }
  if (call.argumentsError !== undefined) {
    return reject(
      "TOOL_INPUT_INVALID",
      `the arguments for ${tool.name} are not valid JSON (${call.argumentsError}); send a JSON object that matches the tool's input schema`,
    );
  }
  if (call.arguments !== undefined) {
    args = call.arguments;
  } else {
    const parsed = parseToolArguments(call.rawArguments);
    if (!parsed.ok) {
      return reject(
        "TOOL_INPUT_INVALID",
        `the arguments for ${tool.name} are not valid JSON (${parsed.error}); send a JSON object that matches the tool's input schema`,
      );
    }
    args = parsed.value;
  }
  let result: Awaited<ReturnType<typeof validateWithSchema>>;
  try {
    result = await validateWithSchema(tool.input, args);
  } catch (error) {
    // A validator that throws rejects the call; it never ends the run.
    const why = error instanceof Error ? error.message : String(error);
    return reject("TOOL_INPUT_INVALID", `the arguments for ${tool.name} could not be validated: ${why}`);
  }
  if (!result.ok) {
    return reject("TOOL_INPUT_INVALID", `the arguments for ${tool.name} do not match its input schema:\n${describeIssues(result.issues, "(the arguments)")}`);
  }
  const asJson = JsonValueSchema.safeParse(result.value);
  return { kind: "start", tool, value: result.value, input: asJson.success ? asJson.data : args, ...(revision === undefined ? {} : { revision }) };
}

function reject(code: RejectionCode, message: string): CallDecision {
  return { kind: "reject", code, message };
}
