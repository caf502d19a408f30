import { YokeError, type AnyTool } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { echoTool, rig } from "./__fixtures__/harness-fixtures.js";

function configErrorOf(create: () => unknown): YokeError<"CONFIG_INVALID"> {
  try {
    create();
  } catch (error) {
    if (YokeError.hasCode(error, "CONFIG_INVALID")) return error;
    throw error;
  }
  throw new Error("expected CONFIG_INVALID");
}

describe("createHarness: tool objects not made by defineTool", () => {
  it("a tool whose sideEffect was dropped is CONFIG_INVALID at createHarness, naming the tool and the field", () => {
    const { sideEffect: _dropped, ...handMade } = echoTool;
    const error = configErrorOf(() => rig([], { tools: [handMade as unknown as AnyTool] }));
    expect(error.message).toContain('tool "echo": sideEffect is missing');
    expect(error.details).toMatchObject({ tool: "echo", field: "sideEffect" });
  });

  it("a tool with every field but no spec is CONFIG_INVALID naming the tool", () => {
    const { spec: _dropped, ...handMade } = echoTool;
    const error = configErrorOf(() => rig([], { tools: [handMade as unknown as AnyTool] }));
    expect(error.message).toContain('tool "echo" must come from defineTool');
  });

  it("a non-object tool is CONFIG_INVALID", () => {
    const error = configErrorOf(() => rig([], { tools: [null as unknown as AnyTool] }));
    expect(error.message).toContain("a tool must be an object");
  });
});
