import { jsonSchema, type JsonValue, type ToolDeclarationV1 } from "@yoke/protocol";
import fc from "fast-check";

type JsonObject = { [key: string]: JsonValue };

/** The model-facing part of a tool, as data. */
export interface ModelPart {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema: JsonObject | undefined;
}

/** The declared contract of a tool, as the options a declaration has (undefined: the default). */
export interface ContractPart {
  readonly sideEffect: "none" | "idempotent" | "reversible" | "irreversible";
  readonly access: boolean;
  readonly timeoutMs: number;
  readonly outputBudget: number | undefined;
  readonly maxAttempts: number | undefined;
  readonly reconcile: boolean;
  readonly compensate: boolean;
  readonly dataClassification: "public" | "internal" | "confidential" | "restricted" | undefined;
  readonly network: { egress: "none" } | { egress: "any" } | { egress: "hosts"; hosts: string[] } | undefined;
  readonly owner: string | undefined;
}

// No -0: canonical JSON writes it `0`, so it is not a different schema.
const leaf = fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -5, max: 5 }), fc.boolean(), fc.constant(null));
const schemaValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 3 },
    leaf,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), tie("value"), { maxKeys: 3 }),
  ),
})).value;

export const jsonSchemaArbitrary: fc.Arbitrary<JsonObject> = fc.record(
  {
    type: fc.constant("object"),
    required: fc.array(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 3 }),
    properties: fc.dictionary(
      fc.string({ minLength: 1, maxLength: 6 }),
      fc.dictionary(fc.constantFrom("type", "description", "enum", "minimum"), schemaValue, { maxKeys: 3 }),
      {
        maxKeys: 4,
      },
    ),
  },
  { requiredKeys: ["type", "properties"] },
) as fc.Arbitrary<JsonObject>;

export const modelPartArbitrary: fc.Arbitrary<ModelPart> = fc.record({
  name: fc.stringMatching(/^[a-zA-Z0-9_-]{1,12}$/),
  description: fc.string({ maxLength: 30 }),
  inputSchema: jsonSchemaArbitrary,
  outputSchema: fc.option(jsonSchemaArbitrary, { nil: undefined }),
});

export const contractPartArbitrary: fc.Arbitrary<ContractPart> = fc.record({
  sideEffect: fc.constantFrom("none", "idempotent", "reversible", "irreversible"),
  access: fc.boolean(),
  timeoutMs: fc.integer({ min: 1, max: 100_000 }),
  outputBudget: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
  maxAttempts: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
  reconcile: fc.boolean(),
  compensate: fc.boolean(),
  dataClassification: fc.option(fc.constantFrom("public", "internal", "confidential", "restricted"), { nil: undefined }),
  network: fc.option(
    fc.oneof(
      fc.constant({ egress: "none" as const }),
      fc.constant({ egress: "any" as const }),
      fc.record({ egress: fc.constant("hosts" as const), hosts: fc.array(fc.domain(), { minLength: 1, maxLength: 2 }) }),
    ),
    { nil: undefined },
  ),
  owner: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
});

/** A declaration built from the two parts (schemas as plain JSON Schema). */
export function declarationOf(model: ModelPart, contract: ContractPart): ToolDeclarationV1 {
  return {
    specificationVersion: "v1",
    name: model.name,
    spec: { name: model.name, description: model.description, inputSchema: model.inputSchema },
    input: jsonSchema(model.inputSchema),
    ...(model.outputSchema === undefined ? {} : { output: jsonSchema(model.outputSchema) }),
    sideEffect: contract.sideEffect,
    timeoutMs: contract.timeoutMs,
    ...(contract.outputBudget === undefined ? {} : { outputBudget: contract.outputBudget }),
    ...(contract.maxAttempts === undefined ? {} : { maxAttempts: contract.maxAttempts }),
    ...(contract.dataClassification === undefined ? {} : { dataClassification: contract.dataClassification }),
    ...(contract.network === undefined ? {} : { network: contract.network }),
    ...(contract.owner === undefined ? {} : { owner: contract.owner }),
    ...(contract.access ? { access: () => ({ reads: [], writes: ["*"] }) } : {}),
    ...(contract.reconcile ? { reconcile: async () => ({ status: "not_applied" as const }) } : {}),
    ...(contract.compensate ? { compensate: async () => undefined } : {}),
    execute: async () => "ok",
  };
}

/** The same JSON with every object's keys in a shuffled order and `required` lists reversed (other arrays keep their order: it is meaning). */
export function reordered(value: JsonValue, seed: number): JsonValue {
  if (Array.isArray(value)) return value.map((item, index) => reordered(item, seed + index + 1));
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  let state = seed >>> 0 || 1;
  for (let index = entries.length - 1; index > 0; index -= 1) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    const other = state % (index + 1);
    [entries[index], entries[other]] = [entries[other]!, entries[index]!];
  }
  return Object.fromEntries(
    entries.map(([key, item], index) => [key, key === "required" && Array.isArray(item) ? [...item].reverse() : reordered(item, seed * 31 + index)]),
  );
}
