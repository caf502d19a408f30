import {
  YokeError,
  canonicalJson,
  describeIssues,
  jsonSchemaOf,
  validateWithSchema,
  type JsonValue,
  type ModelResponse,
  type ResponseFormat,
  type RunState,
  type SchemaLike,
  type StandardSchemaV1,
} from "@yoke/protocol";

/** The journaled source of the note that tells the model its answer did not match the output schema. */
export const OUTPUT_SCHEMA_SOURCE = "output-schema";

/** How each such note begins: what `outputRetriesUsed` counts in the transcript. */
const NOTE_PREFIX = "[runtime] Your final answer does not match the required output schema";

/** A harness's structured output, resolved once: the schema, and the request's response format. */
export interface ResolvedOutput {
  readonly schema: SchemaLike;
  readonly responseFormat: ResponseFormat;
}

/** Checks the `output` option and derives its JSON Schema (CONFIG_INVALID when it has none). */
export function resolveOutput(schema: SchemaLike | undefined): ResolvedOutput | undefined {
  if (schema === undefined) return undefined;
  const json = jsonSchemaOf(schema, "createHarness: output");
  return { schema, responseFormat: { type: "json", name: "output", schema: json } };
}

/** The verdict on a final answer: its JSON and validated value, or why it is not the output. */
export type OutputVerdict = { readonly ok: true; readonly json: JsonValue; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/**
 * Judges the final answer against the output schema: its text parts, parsed as JSON (a
 * single Markdown code fence around it is tolerated), then validated by the schema's own
 * validator. A refusal never gets here (the run ends `refused` first).
 */
export async function judgeAnswer(output: ResolvedOutput, response: Pick<ModelResponse, "content">): Promise<OutputVerdict> {
  const text = response.content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("")
    .trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  let json: JsonValue;
  try {
    json = JSON.parse(fenced ? fenced[1]! : text) as JsonValue;
  } catch (error) {
    return { ok: false, reason: `it is not JSON (${error instanceof Error ? error.message : String(error)}); answer with the JSON value alone` };
  }
  let result: Awaited<ReturnType<typeof validateWithSchema>>;
  try {
    result = await validateWithSchema(output.schema, json);
  } catch (error) {
    return { ok: false, reason: `it could not be validated: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!result.ok) return { ok: false, reason: `these parts do not match:\n${describeIssues(result.issues, "(the answer)")}` };
  return { ok: true, json, value: result.value };
}

/**
 * The note for the model after an answer that is not the output, with the schema itself (a
 * provider that cannot constrain its output has not shown it to the model); deterministic.
 */
export function outputNote(reason: string, output: ResolvedOutput): string {
  return `${NOTE_PREFIX}: ${reason}\nAnswer again with only a JSON value that matches this JSON Schema:\n${canonicalJson(output.responseFormat.schema)}`;
}

/**
 * How many answers of this run were already sent back for not matching the output schema:
 * the notes in the transcript. A pure function of the transcript, so a resume counts as the
 * uninterrupted run did.
 */
export function outputRetriesUsed(state: RunState): number {
  return state.messages.filter((message) => message.role === "user" && message.content[0]?.type === "text" && message.content[0].text.startsWith(NOTE_PREFIX))
    .length;
}

/** The schema's validated value of a journaled output (the JSON that passed it when the run ended). */
export async function outputValue(output: ResolvedOutput | undefined, json: JsonValue | undefined): Promise<unknown> {
  if (json === undefined) return undefined;
  if (output === undefined) return json;
  const result = await validateWithSchema(output.schema as StandardSchemaV1, json);
  if (!result.ok) {
    throw new YokeError(
      "CONFIG_INVALID",
      `the run's journaled output does not match this harness's output schema (was the schema changed?):\n${describeIssues(result.issues, "(the output)")}`,
    );
  }
  return result.value;
}
