import { z } from "zod/v4";

/*
 * A tool's contract and origin as data: what `defineTool` declares and a registry digests
 * (docs/decisions/0010). Kept apart from tool-registry.ts so the declaration can name it.
 */

/** A SHA-256 digest, lowercase hex (the same shape as the journal's event hashes). */
export const DigestSchema = z.string().regex(/^[0-9a-f]{64}$/);

const SideEffectSchema = z.enum(["none", "idempotent", "reversible", "irreversible"]);

/**
 * Where a revision comes from, canonically: what identifies the source, never a secret.
 * `local`: defined in-process (`source` names the registering module or harness, "local" by
 * default). `mcp-stdio`: an MCP server the harness spawns; `env` holds the names of the
 * variables passed to it, never their values. `mcp-http`: an MCP server over Streamable HTTP.
 */
export const ToolOriginSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("local"), source: z.string().min(1) }),
  z.object({ kind: z.literal("mcp-stdio"), command: z.string().min(1), args: z.array(z.string()), env: z.array(z.string()) }),
  z.object({ kind: z.literal("mcp-http"), url: z.string().min(1) }),
]);
export type ToolOrigin = z.infer<typeof ToolOriginSchema>;

/** How sensitive the data a tool reads or returns is. */
export const DataClassificationSchema = z.enum(["public", "internal", "confidential", "restricted"]);
export type DataClassification = z.infer<typeof DataClassificationSchema>;

/** Where a tool may reach on the network: nowhere, declared hosts, or anywhere (the honest default for code nobody declared). */
export const NetworkPolicySchema = z.discriminatedUnion("egress", [
  z.object({ egress: z.literal("none") }),
  z.object({ egress: z.literal("hosts"), hosts: z.array(z.string().min(1)) }),
  z.object({ egress: z.literal("any") }),
]);
export type NetworkPolicy = z.infer<typeof NetworkPolicySchema>;

/**
 * A tool's execution contract: what the runtime enforces, as data. `access`: whether the
 * declaration computes read and write sets (`declared`) or takes the class default;
 * `reconciler` / `compensator`: whether it has them (the functions are code; their presence
 * is contract).
 */
export const ToolContractSchema = z.object({
  sideEffect: SideEffectSchema,
  access: z.enum(["declared", "default"]),
  timeoutMs: z.number().int().positive(),
  outputBudget: z.number().int().positive().nullable(),
  maxAttempts: z.number().int().positive(),
  reconciler: z.boolean(),
  compensator: z.boolean(),
  dataClassification: DataClassificationSchema,
  network: NetworkPolicySchema,
  owner: z.string().nullable(),
  /** The tool asks a person for every call (`always`) or for the calls its function picks (`declared`); absent: it does not. */
  needsApproval: z.enum(["always", "declared"]).optional(),
});
export type ToolContract = z.infer<typeof ToolContractSchema>;

/**
 * What a remote server says about a tool's behaviour (MCP annotations). Hints only: the
 * registering code declares the side-effect class; a hint never changes the contract.
 */
export const ToolHintsSchema = z.object({
  title: z.string().optional(),
  readOnly: z.boolean().optional(),
  destructive: z.boolean().optional(),
  idempotent: z.boolean().optional(),
  openWorld: z.boolean().optional(),
});
export type ToolHints = z.infer<typeof ToolHintsSchema>;
