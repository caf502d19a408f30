// Structured output: `output: <schema>` asks the provider for it, validates the final answer
// with the schema's own validator, sends a mismatch back to the model (bounded, journaled) and
// puts the validated value in `result.output`; the journal alone gives it back on resume.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { YokeError, canonicalJson, parseYokeEvent, type ModelRequest } from "@yoke/protocol";
import { createScriptedModel, failWith, refuse, say } from "@yoke/testkit";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod3";
import { TENANT, readAll, rig } from "./__fixtures__/harness-fixtures.js";
import { createHarness } from "./harness.js";
import { DEFAULT_OUTPUT_RETRIES } from "./harness-deps.js";

const Weather = z.object({ city: z.string(), celsius: z.number(), unit: z.string().default("C") });

describe("structured output", () => {
  it("asks the provider for the schema, validates the answer and returns the schema's value; the journal keeps the JSON", async () => {
    const requests: ModelRequest[] = [];
    const { harness, model, journal } = rig(
      [
        (request) => {
          requests.push(request);
          return say('{"city":"Paris","celsius":21}');
        },
      ],
      { output: Weather },
    );
    const result = await harness.start("Weather in Paris?");
    model.assertConsumed();
    expect(result.outcome).toEqual({ status: "completed" });
    // The schema's value: its default is applied.
    expect(result.output).toEqual({ city: "Paris", celsius: 21, unit: "C" });
    expect(requests[0]?.responseFormat).toEqual({ type: "json", name: "output", schema: z.toJSONSchema(Weather, { io: "input" }) });
    const completed = (await readAll(journal, result.runId)).map(parseYokeEvent).find((event) => event.type === "run.completed");
    expect(completed?.type === "run.completed" && completed.data.output).toEqual({ city: "Paris", celsius: 21 });

    // A fresh harness over the same journal rebuilds the output from it without calling the model.
    const again = createHarness({ provider: model, journal, tenantId: TENANT, output: Weather });
    const resumed = await again.resume(result.runId);
    expect(resumed.output).toEqual({ city: "Paris", celsius: 21, unit: "C" });
    expect(resumed.state.output).toEqual({ city: "Paris", celsius: 21 });
  });

  it("an answer that is not JSON or does not match goes back to the model with the issues, journaled, until one matches", async () => {
    const { harness, model, journal } = rig(
      [
        say("It is 21 degrees in Paris."),
        (request) => {
          const note = request.messages.at(-1);
          expect(note?.role).toBe("user");
          expect(JSON.stringify(note)).toMatch(/does not match the required output schema: it is not JSON/);
          // The schema itself goes with the note: a provider that cannot constrain output never showed it.
          expect(JSON.stringify(note)).toContain(
            JSON.stringify(`matches this JSON Schema:\n${canonicalJson(z.toJSONSchema(Weather, { io: "input" }))}`).slice(1, -1),
          );
          return say('```json\n{"city":"Paris","celsius":"21"}\n```');
        },
        (request) => {
          expect(JSON.stringify(request.messages.at(-1))).toMatch(/- celsius: Invalid input: expected number, received string/);
          return say('```json\n{"city":"Paris","celsius":21}\n```');
        },
      ],
      { output: Weather },
    );
    const result = await harness.start("Weather in Paris?");
    model.assertConsumed();
    expect(result.outcome?.status).toBe("completed");
    expect(result.output).toEqual({ city: "Paris", celsius: 21, unit: "C" });
    const events = (await readAll(journal, result.runId)).map(parseYokeEvent);
    expect(events.filter((event) => event.type === "input.added").map((event) => event.type === "input.added" && event.data.source)).toEqual([
      "output-schema",
      "output-schema",
    ]);
    expect(events.filter((event) => event.type === "completion.checked").map((event) => event.type === "completion.checked" && event.data.passed)).toEqual([
      false,
      false,
    ]);
  });

  it(`after outputRetries (default ${DEFAULT_OUTPUT_RETRIES}) answers that do not match, the run ends verification_failed with no output`, async () => {
    const { harness, model } = rig([say("{}"), say("{}"), say('{"city":1}')], { output: Weather });
    const result = await harness.start("t");
    model.assertConsumed();
    expect(result.outcome?.status).toBe("verification_failed");
    expect(result.outcome?.status === "verification_failed" && result.outcome?.reason).toMatch(
      /^the final answer does not match the output schema: these parts do not match:\n- city:/,
    );
    expect(result.output).toBeUndefined();

    const once = rig([say("nope")], { output: Weather, outputRetries: 0 });
    expect((await once.harness.start("t")).outcome?.status).toBe("verification_failed");
  });

  it("a resume counts the answers already sent back from the journal, as the first process did", async () => {
    const { harness, journal } = rig([say("not json"), failWith(new YokeError("PROVIDER_REQUEST_INVALID", "bad request"))], {
      output: Weather,
      outputRetries: 1,
    });
    const runId = "run_00000000000099";
    const started = await harness.start("t", { runId }).catch((error: unknown) => error);
    expect(YokeError.hasCode(started, "PROVIDER_REQUEST_INVALID")).toBe(true);
    const model = createScriptedModel([say("still not json")]);
    const resumed = await createHarness({ provider: model, journal, tenantId: TENANT, output: Weather, outputRetries: 1, sleep: async () => {} }).resume(runId);
    model.assertConsumed();
    expect(resumed.outcome?.status).toBe("verification_failed");
  });

  it("a refusal is never output: the run waits, and closing it ends refused with no output", async () => {
    const { harness } = rig([refuse("I can't help with that.")], { output: Weather });
    const waiting = await harness.start("t");
    expect(waiting.output).toBeUndefined();
    expect(waiting.state.waiting?.kind).toBe("refusal");
    const result = await harness.resume(waiting.runId, { close: "" });
    expect(result.outcome).toEqual({ status: "refused", reason: "I can't help with that." });
    expect(result.output).toBeUndefined();
  });

  it("a completion check runs on a matching answer only, and a pass carries the output", async () => {
    const seen: string[] = [];
    const { harness } = rig([say("not json"), say('{"city":"Oslo","celsius":-3}')], {
      output: Weather,
      checkCompletion: async ({ response }) => {
        seen.push(JSON.stringify(response.content));
        return { passed: true };
      },
    });
    const result = await harness.start("t");
    expect(seen).toHaveLength(1);
    expect(result.outcome?.status).toBe("verified_success");
    expect(result.output).toEqual({ city: "Oslo", celsius: -3, unit: "C" });
  });

  it.each([
    ["zod 3", z3.object({ city: z3.string(), celsius: z3.number() })],
    ["valibot", toStandardJsonSchema(v.object({ city: v.string(), celsius: v.number() }))],
    ["arktype", type({ city: "string", celsius: "number" })],
  ])("%s output schemas work the same way", async (_label, schema) => {
    const { harness } = rig([say('{"city":"Rome","celsius":"hot"}'), say('{"city":"Rome","celsius":30}')], { output: schema });
    const result = await harness.start("t");
    expect(result.outcome?.status).toBe("completed");
    expect(result.output).toEqual({ city: "Rome", celsius: 30 });
  });

  it("an output schema with no JSON Schema form, or a bad outputRetries, is CONFIG_INVALID at createHarness", () => {
    const build = (options: Parameters<typeof rig>[1]) => {
      try {
        rig([], options);
      } catch (error) {
        return YokeError.hasCode(error, "CONFIG_INVALID") ? (error as Error).message : "other";
      }
      return "none";
    };
    expect(build({ output: v.object({ city: v.string() }) })).toMatch(/^createHarness: output: the valibot schema cannot say what it accepts as JSON Schema/);
    expect(build({ output: Weather, outputRetries: -1 })).toMatch(/outputRetries must be a non-negative integer/);
  });
});
