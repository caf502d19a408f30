// call-model.ts: a response that breaks the ModelResponse contract fails the run with
// PROVIDER_RESPONSE_INVALID, saying so and carrying the schema's error as its cause.
import { describe, expect, it } from "vitest";
import { rejectionOf, rig } from "../__fixtures__/harness-fixtures.js";

describe("a response that breaks the ModelResponse contract", () => {
  it("PROVIDER_RESPONSE_INVALID: names the contract, and the schema's error is its cause", async () => {
    const { harness } = rig([{ content: [{ type: "tool-call", toolName: "echo", toolCallId: "", arguments: {} }] }]);
    const error = await rejectionOf(harness.start("t"));
    expect(error.code).toBe("PROVIDER_RESPONSE_INVALID");
    expect(error.message).toMatch(/^the provider returned a response that is not a ModelResponse: ./);
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).toContain((error.cause as Error).message);
  });
});
