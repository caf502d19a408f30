import { describeIssues, type JsonValue, type SchemaLike, type StandardSchemaV1, type VerifierV1, YokeError } from "@yoke/protocol";
import { defineVerifier } from "./define-verifier.js";

export interface SchemaVerifierOptions {
  readonly id: string;
  /** Any Standard Schema: zod 4 or 3.24+, valibot, arktype, or protocol's `jsonSchema(json, { validate })`. */
  readonly schema: SchemaLike;
  readonly description?: string;
}

/**
 * The structured output must match `schema`. The value checked is `answer.output` (the run's
 * parsed structured output) when there is one, else the answer's text parsed as JSON (one
 * surrounding ```json fence is allowed). Fails with `retry: true` when the text is not JSON or
 * the schema reports issues; the reason lists each issue (`- path: message`) and
 * `details.issues` holds them as `{ path, message }`. Replay-safe. A schema whose validator
 * throws is VERIFIER_FAILED.
 *
 * @example
 * ```ts
 * const report = schemaVerifier({ id: "report-shape", schema: z.object({ fixed: z.array(z.string()).min(1) }) });
 * ```
 */
export function schemaVerifier(options: SchemaVerifierOptions): VerifierV1 {
  const { id, schema } = options;
  if ((typeof schema !== "object" && typeof schema !== "function") || schema === null || typeof schema["~standard"]?.validate !== "function") {
    throw new YokeError("CONFIG_INVALID", `verifier "${id}": schema must be a Standard Schema (zod, valibot, arktype, or jsonSchema(json, { validate }))`);
  }
  return defineVerifier({
    id,
    kind: "schema",
    replaySafe: true,
    description: options.description ?? "the structured output matches the schema",
    async verify({ answer }) {
      let value: unknown = answer.output;
      const source = value === undefined ? "text" : "output";
      if (value === undefined) {
        const parsed = parseJsonText(answer.text);
        if (!parsed.ok) return { passed: false, retry: true, reason: `the answer is not JSON: ${parsed.message}`, details: { source, issues: [] } };
        value = parsed.value;
      }
      const result = await schema["~standard"].validate(value);
      if (!result.issues) return { passed: true, details: { source } };
      const issues = result.issues.map((issue) => ({ path: pathOf(issue), message: issue.message }));
      return {
        passed: false,
        retry: true,
        reason: `the ${source === "output" ? "structured output" : "answer"} does not match the schema:\n${describeIssues(result.issues)}`,
        details: { source, issues: issues as JsonValue },
      };
    },
  });
}

function pathOf(issue: StandardSchemaV1.Issue): string[] {
  return (issue.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment));
}

function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  try {
    return { ok: true, value: JSON.parse(fenced ? fenced[1]! : text) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
