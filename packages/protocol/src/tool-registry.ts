import { z } from "zod/v4";
import { JsonObjectSchema } from "./json-value.js";
import type { JsonValue } from "./json-value.js";
import { ToolSpecSchema } from "./model.js";
import {
  DigestSchema,
  ToolContractSchema,
  ToolHintsSchema,
  ToolOriginSchema,
  type DataClassification,
  type NetworkPolicy,
  type ToolHints,
  type ToolOrigin,
} from "./tool-contract.js";
import type { AnyToolDeclaration, SideEffectClass, ToolCallContext, ToolDeclarationV1, ToolOutput } from "./tool-declaration.js";

/*
 * The vocabulary of tool revisions, registries and tool sources (docs/decisions/0010).
 * A revision is immutable data plus the declaration that runs it; a run pins a snapshot of
 * revisions in `run.started` and only ever calls a pinned (or journaled re-admitted) revision.
 */

/** What running a tool twice does to the world (the same enum as events use). */
type JsonObject = { [key: string]: JsonValue };

export {
  DataClassificationSchema,
  NetworkPolicySchema,
  ToolContractSchema,
  ToolHintsSchema,
  ToolOriginSchema,
  type DataClassification,
  type NetworkPolicy,
  type ToolContract,
  type ToolHints,
  type ToolOrigin,
} from "./tool-contract.js";

/**
 * One immutable revision of a tool, as data (what `run.started` pins). Digests are SHA-256
 * over canonical JSON:
 * - `modelDigest` over what the model sees: name, description, input JSON Schema, output JSON Schema;
 * - `contractDigest` over `contract`;
 * - `digest`, the revision's identity, over both digests, origin, trust domain, capabilities and hints.
 */
export const ToolRevisionRecordSchema = z.object({
  name: z.string(),
  digest: DigestSchema,
  modelDigest: DigestSchema,
  contractDigest: DigestSchema,
  spec: ToolSpecSchema,
  outputSchema: JsonObjectSchema.optional(),
  contract: ToolContractSchema,
  origin: ToolOriginSchema,
  /** Who vouches for the tool (`local`, `acme-internal`, `third-party`): policies and the context compiler key on it. */
  trustDomain: z.string().min(1),
  /** Capability classes (`fs.read`, `payments.write`): what discovery filters by. Sorted, unique. */
  capabilities: z.array(z.string().min(1)),
  hints: ToolHintsSchema.optional(),
});
export type ToolRevisionRecord = z.infer<typeof ToolRevisionRecordSchema>;

/** A set of revisions (sorted by name, one per name) and the SHA-256 over their digests. */
export const ToolSnapshotSchema = z.object({
  digest: DigestSchema,
  revisions: z.array(ToolRevisionRecordSchema),
});
export type ToolSnapshot = z.infer<typeof ToolSnapshotSchema>;

/**
 * How a pinned tool's live definition differs from the pinned one. `renamed`: the pinned tool
 * is gone and a tool with the same body under another name appeared; `added`: a tool the
 * snapshot does not hold; `removed`: the source no longer offers it.
 */
export const ToolChangeSchema = z.enum(["description", "input_schema", "output_schema", "contract", "origin", "hints", "renamed", "added", "removed"]);
export type ToolChange = z.infer<typeof ToolChangeSchema>;

/** A compatibility event: a source offers something other than what a snapshot pinned. */
export const ToolDriftSchema = z.object({
  toolName: z.string(),
  /** The pinned revision; null for an added tool. */
  pinned: DigestSchema.nullable(),
  /** The revision offered now; null when the tool was removed. */
  offered: DigestSchema.nullable(),
  changes: z.array(ToolChangeSchema).min(1),
  /** With `renamed`: the name the body now has. */
  renamedTo: z.string().optional(),
});
export type ToolDrift = z.infer<typeof ToolDriftSchema>;

/**
 * A declared rule that re-admits a drifted tool for runs pinned to its old revision. It
 * admits a drift only when every change is in `changes` and the optional matchers match.
 * Default: no rules, so nothing drifted is callable.
 */
export const ReadmissionRuleSchema = z.object({
  id: z.string().min(1),
  changes: z.array(ToolChangeSchema).min(1),
  /** Only tools from an origin of this kind (and, for `mcp-http`, this URL / `mcp-stdio`, this command). */
  origin: z.object({ kind: z.enum(["local", "mcp-stdio", "mcp-http"]), url: z.string().optional(), command: z.string().optional() }).optional(),
  trustDomains: z.array(z.string()).optional(),
  tools: z.array(z.string()).optional(),
});
export type ReadmissionRule = z.infer<typeof ReadmissionRuleSchema>;

/** Lifecycle of a tool name: `deprecated` stays callable by runs pinned to it but is not in new snapshots; `withdrawn` is blocked. */
export type ToolLifecycle = "active" | "deprecated" | "withdrawn";

/** A revision a registry can run: the pinned data plus the declaration that executes it. */
export interface ToolRevisionV1 extends ToolRevisionRecord {
  readonly declaration: ToolDeclarationV1;
}

/** Who is asking for tools, and what for: discovery offers a turn only what this request admits. */
export interface DiscoveryRequest {
  /** The authenticated principal the run acts for. */
  readonly principal: string;
  /** The delegated task (the run's task text, or a task id). */
  readonly task: string;
  /** Narrow further: any listed capability class, owner, trust domain, side-effect class or name. */
  readonly filter?: ToolFilter;
}

/** A typed discovery filter; every present field must match (fields are ORs within, ANDs across). */
export interface ToolFilter {
  readonly capabilities?: readonly string[];
  readonly owners?: readonly string[];
  readonly trustDomains?: readonly string[];
  readonly sideEffects?: readonly SideEffectClass[];
  readonly names?: readonly string[];
}

/** The tools offered for one turn, frozen: their records and the SHA-256 over their digests. */
export interface OfferedTools {
  readonly digest: string;
  readonly revisions: readonly ToolRevisionRecord[];
}

/** Whether a pinned revision may be called now. */
export type ToolResolution =
  | { readonly status: "callable"; readonly revision: ToolRevisionV1 }
  | { readonly status: "drifted"; readonly drift: ToolDrift; readonly offered?: ToolRevisionV1 }
  | { readonly status: "withdrawn"; readonly reason?: string }
  | { readonly status: "unavailable"; readonly reason: string };

/** Options of a registration: where the tools come from and what they may do. */
export interface RegistrationOptions {
  readonly trustDomain?: string;
  readonly capabilities?: readonly string[];
}

/**
 * A tool registry. Implementations pass `registryContractTests` from `@yoke/testkit`.
 */
export interface ToolRegistryV1 {
  readonly specificationVersion: "v1";
  /** Registers a local tool; the same definition registered twice is the same revision. */
  register(tool: AnyToolDeclaration, options?: RegistrationOptions & { readonly source?: string }): ToolRevisionV1;
  /** Connects a remote source and registers what it lists. Rejects TOOL_SOURCE_UNAVAILABLE when it cannot start. */
  addSource(source: ToolSourceV1, options: SourceRegistrationOptions): Promise<readonly ToolRevisionV1[]>;
  /** Re-lists the sources (all, or those of one origin) and records drift; the compatibility events found. */
  refresh(): Promise<readonly ToolDrift[]>;
  setLifecycle(name: string, lifecycle: ToolLifecycle, reason?: string): void;
  /** The active revisions now. */
  snapshot(): ToolSnapshot;
  /** The revisions of `snapshot` offered to a turn for this request. */
  discover(snapshot: ToolSnapshot, request: DiscoveryRequest): OfferedTools;
  /** Whether a pinned revision can be called now, and the revision to run when it can. */
  resolve(pinned: ToolRevisionRecord): Promise<ToolResolution>;
  /** The declared rule that re-admits this drift, if one does. */
  readmissionRule(drift: ToolDrift, offered: ToolRevisionRecord): ReadmissionRule | undefined;
  /** Every compatibility event recorded so far, oldest first. */
  compatibilityEvents(): readonly ToolDrift[];
  /** Closes every source it connected. */
  close(): Promise<void>;
}

/** What the registering code declares about one remote tool: the contract a server cannot declare for itself. */
export interface RemoteToolDeclaration {
  readonly sideEffect: SideEffectClass;
  readonly timeoutMs?: number;
  readonly outputBudget?: number;
  readonly maxAttempts?: number;
  readonly dataClassification?: DataClassification;
  readonly network?: NetworkPolicy;
  readonly owner?: string;
  readonly capabilities?: readonly string[];
  readonly reconcile?: ToolDeclarationV1["reconcile"];
  readonly compensate?: ToolDeclarationV1["compensate"];
  readonly access?: ToolDeclarationV1["access"];
}

/**
 * How a source is registered. A tool the `tools` map does not declare is `irreversible`, with
 * no reconciler (whatever its hints say).
 */
export interface SourceRegistrationOptions extends RegistrationOptions {
  readonly trustDomain: string;
  readonly tools?: Readonly<Record<string, RemoteToolDeclaration>>;
}

/** A tool as a source lists it (an MCP `tools/list` entry). Descriptions are untrusted content. */
export interface SourceToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema?: JsonObject;
  readonly hints?: ToolHints;
}

/**
 * A remote origin of tools (an MCP server). Errors are typed: a source that cannot start or
 * whose connection is lost before a call was sent is TOOL_SOURCE_UNAVAILABLE; a call whose
 * effect may have happened (the server died or hung after the request was sent, an answer
 * that cannot be read) rejects TOOL_OUTCOME_UNKNOWN; a malformed listing is TOOL_SOURCE_INVALID;
 * a tool's own error result is TOOL_FAILED.
 */
export interface ToolSourceV1 {
  readonly specificationVersion: "v1";
  readonly origin: ToolOrigin;
  /** Starts and initializes the connection; idempotent. */
  connect(signal?: AbortSignal): Promise<void>;
  /** What the source offers now. */
  list(signal?: AbortSignal): Promise<readonly SourceToolDefinition[]>;
  /** Calls a tool; `context.signal` aborts it. */
  call(name: string, input: JsonValue, context: ToolCallContext): Promise<ToolOutput>;
  /** Called when the source says its list changed (MCP `notifications/tools/list_changed`); returns an unsubscribe. */
  onListChanged(listener: () => void): () => void;
  close(): Promise<void>;
}
