import { createHash } from "node:crypto";
import {
  DEFAULT_TOOL_TIMEOUT_MS,
  YokeError,
  canonicalJson,
  jsonSchemaOf,
  type JsonValue,
  type ToolContract,
  type AnyToolDeclaration,
  type ToolHints,
  type ToolOrigin,
  type ToolRevisionRecord,
  type ToolRevisionV1,
} from "@yoke/protocol";

type JsonObject = { [key: string]: JsonValue };

/** SHA-256 of a value's canonical JSON, lowercase hex. */
export function sha256OfJson(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/** Where a revision comes from and who vouches for it: everything but the declaration. */
export interface RevisionOptions {
  /** Default `{ kind: "local", source: "local" }`. */
  readonly origin?: ToolOrigin;
  /** Default `"local"`. */
  readonly trustDomain?: string;
  readonly capabilities?: readonly string[];
  readonly hints?: ToolHints;
  /**
   * The output JSON Schema, when the declaration's `output` cannot give one itself (a remote
   * tool's listed `outputSchema`). Default: `jsonSchemaOf(tool.output)` when it has one.
   */
  readonly outputSchema?: JsonObject;
}

/**
 * A declaration's execution contract as data: what `contractDigest` covers. Defaults as the
 * runtime applies them: `maxAttempts` 3, `dataClassification` internal, `network` any.
 *
 * @example
 * ```ts
 * contractOf(defineTool({ name: "add", description: "Add.", input: z.object({}), sideEffect: "none", execute: async () => "0" }));
 * // { sideEffect: "none", access: "default", timeoutMs: 60000, outputBudget: null, maxAttempts: 3, reconciler: false, ... }
 * ```
 */
export function contractOf(tool: AnyToolDeclaration): ToolContract {
  return {
    sideEffect: tool.sideEffect,
    access: tool.access === undefined ? "default" : "declared",
    timeoutMs: tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    outputBudget: tool.outputBudget ?? null,
    maxAttempts: tool.maxAttempts ?? 3,
    reconciler: tool.reconcile !== undefined,
    compensator: tool.compensate !== undefined,
    dataClassification: tool.dataClassification ?? "internal",
    network: tool.network ?? { egress: "any" },
    owner: tool.owner ?? null,
    // Only when set, so the digest of every tool that asks no person is unchanged.
    ...(tool.needsApproval === undefined || tool.needsApproval === false
      ? {}
      : { needsApproval: typeof tool.needsApproval === "function" ? "declared" : "always" }),
  };
}

/** The output JSON Schema a declaration shows, or undefined when it has none (or none in JSON Schema form). */
function outputSchemaOf(tool: AnyToolDeclaration): JsonObject | undefined {
  if (tool.output === undefined) return undefined;
  try {
    return jsonSchemaOf(tool.output, `tool ${tool.name}: output`);
  } catch (error) {
    // An output schema with no JSON Schema form is still enforced by the runtime; the model is
    // never shown it, so the model-facing digest cannot cover it.
    if (YokeError.isInstance(error) && error.code === "CONFIG_INVALID") return undefined;
    throw error;
  }
}

/** Sorted, unique. */
export function normalizeCapabilities(capabilities: readonly string[] = []): string[] {
  return [...new Set(capabilities)].sort();
}

/**
 * A JSON Schema as digested: every `required` list (a set of property names) sorted and
 * deduplicated, so a zod shape written in another order, whose `required` follows it, digests
 * the same. Everything else is kept as it is (canonical JSON sorts object keys).
 */
export function schemaForDigest(schema: JsonValue): JsonValue {
  if (Array.isArray(schema)) return schema.map(schemaForDigest);
  if (schema === null || typeof schema !== "object") return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] =
      key === "required" && Array.isArray(value) && value.every((item) => typeof item === "string")
        ? [...new Set(value as string[])].sort()
        : schemaForDigest(value);
  }
  return out;
}

/** What `modelDigest` covers. */
export function modelPartOf(record: Pick<ToolRevisionRecord, "spec" | "outputSchema">): JsonObject {
  return {
    name: record.spec.name,
    description: record.spec.description,
    inputSchema: schemaForDigest(record.spec.inputSchema),
    outputSchema: record.outputSchema === undefined ? null : schemaForDigest(record.outputSchema),
    // Only when set: how strictly the provider holds the model to the input schema.
    ...(record.spec.strict === undefined ? {} : { strict: record.spec.strict }),
  };
}

/** What `digest` covers. */
export function identityPartOf(record: Omit<ToolRevisionRecord, "digest" | "spec" | "contract" | "outputSchema" | "name">): JsonValue {
  return {
    modelDigest: record.modelDigest,
    contractDigest: record.contractDigest,
    origin: record.origin as JsonValue,
    trustDomain: record.trustDomain,
    capabilities: normalizeCapabilities(record.capabilities),
    hints: (record.hints as JsonValue | undefined) ?? null,
  };
}

/**
 * The immutable revision of a tool: its record (spec, output schema, contract, origin, trust
 * domain, capabilities, hints) with its three SHA-256 digests over canonical JSON, and the
 * declaration that runs it. Equal definitions give equal digests whatever the key order of
 * their schemas or the order of their capabilities.
 *
 * @example
 * ```ts
 * const revision = revisionOf(readFile, { trustDomain: "local", capabilities: ["fs.read"] });
 * revision.modelDigest; // over name, description, input and output JSON Schema
 * revision.contractDigest; // over contractOf(readFile)
 * revision.digest; // over both, origin, trust domain, capabilities and hints
 * ```
 */
export function revisionOf(tool: AnyToolDeclaration, options: RevisionOptions = {}): ToolRevisionV1 {
  if (tool.spec.name !== tool.name) {
    throw new YokeError("CONFIG_INVALID", `tool ${tool.name}: its spec is named ${tool.spec.name}`, { details: { tool: tool.name } });
  }
  // Only the model-facing fields of the spec: the record is what the model was shown.
  const spec = {
    name: tool.spec.name,
    description: tool.spec.description,
    inputSchema: tool.spec.inputSchema,
    ...(tool.spec.strict === undefined ? {} : { strict: tool.spec.strict }),
  };
  const outputSchema = options.outputSchema ?? outputSchemaOf(tool);
  const contract = contractOf(tool);
  const origin: ToolOrigin = options.origin ?? { kind: "local", source: "local" };
  const trustDomain = options.trustDomain ?? "local";
  if (trustDomain.length === 0) throw new YokeError("CONFIG_INVALID", `tool ${tool.name}: the trust domain is empty`, { details: { tool: tool.name } });
  const capabilities = normalizeCapabilities(options.capabilities);
  if (capabilities.some((capability) => capability.length === 0)) {
    throw new YokeError("CONFIG_INVALID", `tool ${tool.name}: a capability class is empty`, { details: { tool: tool.name } });
  }
  const modelDigest = sha256OfJson(modelPartOf({ spec, outputSchema }));
  const contractDigest = sha256OfJson(contract);
  const hints = options.hints === undefined ? undefined : withoutUndefined(options.hints);
  const digest = sha256OfJson(identityPartOf({ modelDigest, contractDigest, origin, trustDomain, capabilities, ...(hints === undefined ? {} : { hints }) }));
  return {
    name: tool.name,
    digest,
    modelDigest,
    contractDigest,
    spec,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    contract,
    origin,
    trustDomain,
    capabilities,
    ...(hints === undefined ? {} : { hints }),
    declaration: tool,
  };
}

/**
 * The record alone (what a snapshot, `run.started` and `tool.readmitted` hold), without the
 * declaration: plain JSON.
 *
 * @example
 * ```ts
 * const resolution = await registry.resolve(pinned);
 * if (resolution.status === "drifted" && resolution.offered) journal({ type: "tool.readmitted", data: { toolName, rule: rule.id, revision: recordOf(resolution.offered) } });
 * ```
 */
export function recordOf(revision: ToolRevisionV1 | ToolRevisionRecord): ToolRevisionRecord {
  const { declaration: _declaration, ...record } = revision as ToolRevisionV1;
  return record;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
