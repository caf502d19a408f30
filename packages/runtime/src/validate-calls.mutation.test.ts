// validate-calls.ts: every rejection goes back to the model as the text of an error result,
// so what it says is the model's only guide to a better call. Pinned here, message by message.
import type { ToolCallPart } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type AnyTool } from "./define-tool.js";
import { validateCall, validateCalls } from "./validate-calls.js";

const tool = (name: string) =>
  defineTool({ name, description: name, input: z.object({ text: z.string() }), sideEffect: "none", execute: async ({ text }) => text }) as AnyTool;

const call = (toolCallId: string, toolName: string, rawArguments = '{"text":"x"}', extra: Partial<ToolCallPart> = {}): ToolCallPart => ({
  type: "tool-call",
  toolCallId,
  toolName,
  rawArguments,
  ...extra,
});

describe("validateCalls' rejections", () => {
  it("an unknown tool: names the available tools, sorted; (none) when there are none", async () => {
    const tools = new Map([
      ["write", tool("write")],
      ["read", tool("read")],
    ]);
    expect(await validateCalls([call("c1", "delete")], tools)).toEqual([
      { kind: "reject", code: "TOOL_UNKNOWN", message: 'there is no tool named "delete"; the available tools are: read, write' },
    ]);
    expect(await validateCalls([call("c1", "delete")], new Map())).toEqual([
      { kind: "reject", code: "TOOL_UNKNOWN", message: 'there is no tool named "delete"; the available tools are: (none)' },
    ]);
  });

  it("a call past the turn's limit: says how many were proposed, the limit, and which call this was", async () => {
    const tools = new Map([["read", tool("read")]]);
    const decisions = await validateCalls([call("c1", "read"), call("c2", "read"), call("c3", "read")], tools, 2);
    expect(decisions.map((decision) => decision.kind)).toEqual(["start", "start", "reject"]);
    expect(decisions[2]).toEqual({
      kind: "reject",
      code: "TOOL_CALL_LIMIT",
      message:
        "this response proposed 3 tool calls and a turn runs at most 2, so this call (number 3) was not run; propose fewer calls per response, the most important first",
    });
  });

  it("a repeated tool-call id: says which id", async () => {
    const tools = new Map([["read", tool("read")]]);
    const decisions = await validateCalls([call("c1", "read"), call("c1", "read")], tools);
    expect(decisions[1]).toEqual({
      kind: "reject",
      code: "TOOL_DUPLICATE_CALL_ID",
      message: 'tool call id "c1" was already used by an earlier call in this response, so this call was not run; give every call its own id',
    });
  });
});

describe("validateCall's rejections", () => {
  it("arguments the adapter could not parse: its own error is what the model reads", async () => {
    const decision = await validateCall(call("c1", "read", '{"text":', { argumentsError: "the stream ended inside a string" }), tool("read"));
    expect(decision).toEqual({
      kind: "reject",
      code: "TOOL_INPUT_INVALID",
      message: "the arguments for read are not valid JSON (the stream ended inside a string); send a JSON object that matches the tool's input schema",
    });
  });

  it("raw arguments that are not JSON: the parser's error", async () => {
    const decision = await validateCall(call("c1", "read", '{"text":'), tool("read"));
    expect(decision.kind).toBe("reject");
    expect(decision.kind === "reject" && decision.message).toMatch(
      /^the arguments for read are not valid JSON \(.+\); send a JSON object that matches the tool's input schema$/,
    );
  });

  it("a validator that throws: the call is rejected with what it threw, the run goes on", async () => {
    const throwing = {
      ...tool("read"),
      input: {
        "~standard": {
          version: 1,
          vendor: "test",
          validate: () => {
            throw new Error("the schema service is down");
          },
        },
      },
    } as unknown as AnyTool;
    expect(await validateCall(call("c1", "read"), throwing)).toEqual({
      kind: "reject",
      code: "TOOL_INPUT_INVALID",
      message: "the arguments for read could not be validated: the schema service is down",
    });
  });
});
