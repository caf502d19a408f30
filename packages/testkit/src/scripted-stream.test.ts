import type { ModelStreamPart } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { createScriptedModel } from "./scripted-model.js";
import { callTools } from "./scripted-model-steps.js";

describe("the scripted model's stream", () => {
  it("streams text a word at a time and each call's arguments in chunks, adding up to the response it returns", async () => {
    const model = createScriptedModel([callTools([{ name: "lookup", args: { city: "Paris, France", days: 3 }, id: "c1" }], "Looking it up now.")]);
    const parts: ModelStreamPart[] = [];
    const response = await model.generate({ messages: [], tools: [] }, { onStreamPart: (part) => parts.push(part) });
    expect(parts.flatMap((part) => (part.type === "text-delta" ? [part.text] : []))).toEqual(["Looking ", "it ", "up ", "now."]);
    const args = parts.flatMap((part) => (part.type === "tool-call-delta" ? [part.argumentsDelta] : []));
    expect(args.length).toBeGreaterThan(1);
    expect(args.join("")).toBe('{"city":"Paris, France","days":3}');
    expect(parts.map((part) => part.type).filter((type) => type !== "text-delta" && type !== "tool-call-delta")).toEqual([
      "tool-call-start",
      "tool-call-end",
      "finish",
    ]);
    expect(parts.at(-1)).toEqual({ type: "finish", response });
  });
});
