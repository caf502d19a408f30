import { Validator, type Schema, type SchemaDraft } from "@cfworker/json-schema";
import {
  DEFAULT_TOOL_TIMEOUT_MS,
  ToolSpecSchema,
  YokeError,
  type JsonValue,
  type RemoteToolDeclaration,
  type SourceToolDefinition,
  type JsonSchemaDefinition,
  type ToolDeclarationV1,
  type ToolSourceV1,
} from "@yoke/protocol";

/** The draft a schema names in `$schema` (MCP servers send draft-07 and 2020-12), 2020-12 when it names none. */
function draftOf(schema: Record<string, unknown>): SchemaDraft {
  const named = typeof schema.$schema === "string" ? schema.$schema : "";
  if (named.includes("draft-04")) return "4";
  if (named.includes("draft-07") || named.includes("draft-06")) return "7";
  if (named.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/**
 * A Standard Schema (and Standard JSON Schema, giving `schema` back) validating JSON against a
 * listed JSON Schema: what the model sends is checked before the source is called, and a
 * structured result against the listed output schema.
 */
export function jsonSchemaValidator(toolName: string, schema: Record<string, unknown>): JsonSchemaDefinition<JsonValue, JsonValue> {
  let validator: Validator;
  try {
    validator = new Validator(schema as Schema, draftOf(schema), false);
  } catch (cause) {
    throw new YokeError("TOOL_SOURCE_INVALID", `tool ${toolName}: its input schema cannot be compiled`, { details: { tool: toolName }, cause });
  }
  return {
    "~standard": {
      version: 1,
      vendor: "yoke-json-schema",
      jsonSchema: { input: () => structuredClone(schema), output: () => structuredClone(schema) },
      validate(value: unknown) {
        const result = validator.validate(value);
        if (result.valid) return { value: value as JsonValue };
        // The leaf errors name the offending member; the rest repeat them up the tree.
        const leaves = result.errors.filter(
          (error) =>
            !["properties", "items", "allOf", "anyOf", "oneOf", "$ref", "prefixItems", "additionalProperties"].includes(error.keyword) ||
            result.errors.length === 1,
        );
        const issues = (leaves.length > 0 ? leaves : result.errors).map((error) => ({
          message: error.error,
          path: error.instanceLocation
            .replace(/^#\/?/, "")
            .split("/")
            .filter((segment) => segment.length > 0),
        }));
        return { issues };
      },
    },
  };
}

/**
 * The declaration that runs a listed remote tool: the registering code's contract (an
 * undeclared tool is `irreversible`, with no reconciler, whatever its hints say), input
 * checked against the listed JSON Schema (TOOL_INPUT_INVALID before the source is called),
 * and `execute` calling the source.
 */
export function remoteDeclarationOf(source: ToolSourceV1, definition: SourceToolDefinition, declared: RemoteToolDeclaration | undefined): ToolDeclarationV1 {
  const spec = ToolSpecSchema.safeParse({ name: definition.name, description: definition.description, inputSchema: definition.inputSchema });
  if (!spec.success) {
    throw new YokeError("TOOL_SOURCE_INVALID", `the source lists a tool that is not a valid tool spec: ${JSON.stringify(definition.name)}`, {
      details: { tool: String(definition.name) },
      cause: spec.error,
    });
  }
  const input = jsonSchemaValidator(definition.name, definition.inputSchema);
  // A structured result the listed output schema refuses is TOOL_OUTPUT_INVALID for the model.
  const output = definition.outputSchema === undefined ? undefined : jsonSchemaValidator(definition.name, definition.outputSchema);
  const name = definition.name;
  return {
    specificationVersion: "v1",
    name,
    spec: spec.data,
    input,
    ...(output === undefined ? {} : { output }),
    sideEffect: declared?.sideEffect ?? "irreversible",
    timeoutMs: declared?.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    ...(declared?.outputBudget === undefined ? {} : { outputBudget: declared.outputBudget }),
    ...(declared?.maxAttempts === undefined ? {} : { maxAttempts: declared.maxAttempts }),
    ...(declared?.dataClassification === undefined ? {} : { dataClassification: declared.dataClassification }),
    ...(declared?.network === undefined ? {} : { network: declared.network }),
    ...(declared?.owner === undefined ? {} : { owner: declared.owner }),
    ...(declared?.access === undefined ? {} : { access: declared.access }),
    ...(declared?.reconcile === undefined ? {} : { reconcile: declared.reconcile }),
    ...(declared?.compensate === undefined ? {} : { compensate: declared.compensate }),
    async execute(value, context) {
      // The scheduler validates first; a direct caller is held to the same schema.
      const checked = await input["~standard"].validate(value);
      if (checked.issues) {
        throw new YokeError("TOOL_INPUT_INVALID", `tool ${name}: ${checked.issues.map((issue) => issue.message).join("; ")}`, { details: { tool: name } });
      }
      return source.call(name, value as JsonValue, context);
    },
  };
}
