import { JsonValueSchema, parseToolArguments, type JsonValue, type ToolCallPart } from "@yoke/protocol";
import type { z } from "zod";
import type { AnyTool } from "./define-tool.js";

/** Why a proposed call is not run. Each code goes back to the model in an error result. */
export type RejectionCode = "TOOL_UNKNOWN" | "TOOL_INPUT_INVALID" | "TOOL_DUPLICATE_CALL_ID" | "TOOL_CALL_LIMIT";

/** The verdict on one proposed call. */
export type CallDecision =
  | {
      readonly kind: "start";
      readonly tool: AnyTool;
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
 * that fails the tool's schema.
 */
export function validateCalls(calls: readonly ToolCallPart[], tools: ReadonlyMap<string, AnyTool>, maxCalls?: number): CallDecision[] {
  const seen = new Set<string>();
  return calls.map((call, index) => {
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
    return validateCall(call, tools);
  });
}

function validateCall(call: ToolCallPart, tools: ReadonlyMap<string, AnyTool>): CallDecision {
  const tool = tools.get(call.toolName);
  if (!tool) {
    const names = [...tools.keys()].sort().join(", ") || "(none)";
    return reject("TOOL_UNKNOWN", `there is no tool named ${JSON.stringify(call.toolName)}; the available tools are: ${names}`);
  }
  let args: JsonValue;
  if (call.argumentsError !== undefined) {
    return reject("TOOL_INPUT_INVALID", `the arguments for ${tool.name} are not valid JSON (${call.argumentsError}); send a JSON object that matches the tool's input schema`);
  } else if (call.arguments !== undefined) {
    args = call.arguments;
  } else {
    const parsed = parseToolArguments(call.rawArguments);
    if (!parsed.ok) {
      return reject("TOOL_INPUT_INVALID", `the arguments for ${tool.name} are not valid JSON (${parsed.error}); send a JSON object that matches the tool's input schema`);
    }
    args = parsed.value;
  }
  const result = tool.input.safeParse(args);
  if (!result.success) {
    return reject("TOOL_INPUT_INVALID", `the arguments for ${tool.name} do not match its input schema:\n${describeIssues(result.error.issues)}`);
  }
  const asJson = JsonValueSchema.safeParse(result.data);
  return { kind: "start", tool, value: result.data, input: asJson.success ? asJson.data : args };
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path.length === 0 ? "(the arguments)" : issue.path.map(String).join(".");
      return `- ${path}: ${issue.message}`;
    })
    .join("\n");
}

function reject(code: RejectionCode, message: string): CallDecision {
  return { kind: "reject", code, message };
}
