// Structured output through the runtime over the real openai SDK (Responses API, replayed wire
// bytes): the request carries the schema as a strict json_schema text format; an answer that
// does not match goes back to the model with its issues; the matching one is `result.output`.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "@yoke/journal";
import { createOpenAIProvider } from "@yoke/provider-openai";
import { createHarness } from "@yoke/runtime";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";
import { z } from "zod";

const fixtures = fileURLToPath(new URL("../../../packages/provider-openai/src/__fixtures__/", import.meta.url));

describe("openai responses: structured output", () => {
  it("sends the output schema as a strict json_schema format, sends a mismatch back, and returns the validated output", async () => {
    const path = "/v1/responses";
    const server = await createReplayServer([
      readReplayFixture(fixtures, "structured-output-mismatch.sse", { path }),
      readReplayFixture(fixtures, "structured-output.sse", { path }),
    ]);
    const Weather = z.strictObject({ city: z.string(), celsius: z.number() });
    const journal = createMemoryJournal();
    const harness = createHarness({
      journal,
      provider: createOpenAIProvider({ model: "gpt-5-mini", baseURL: `${server.url}/v1`, apiKey: "sk-test" }),
      tenantId: "tenant_structured",
      output: Weather,
    });
    const result = await harness.start("How warm is it in Paris?");
    await server.close();

    expect(result.outcome).toEqual({ status: "completed" });
    expect(result.output).toEqual({ city: "Paris", celsius: 21 });
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests.map((request) => request.body as { text?: { format?: unknown }; input: unknown[] });
    const { $schema: _dialect, ...schema } = z.toJSONSchema(Weather, { io: "input" });
    expect(first!.text?.format).toEqual({ type: "json_schema", name: "output", schema, strict: true });
    expect(second!.text?.format).toEqual(first!.text?.format);
    expect(JSON.stringify(second!.input.at(-1))).toMatch(
      /does not match the required output schema: these parts do not match:\\n- celsius: Invalid input: expected number, received string/,
    );

    const completed = [];
    for await (const event of harness.events(result.runId)) if (event.type === "run.completed") completed.push(event.data);
    expect(completed).toEqual([{ outcome: { status: "completed" }, turns: 2, output: { city: "Paris", celsius: 21 } }]);
  });
});
