import { z } from "zod/v4";
import { YokeError, type ToolSpec } from "@yoke/protocol";
import type { ContextInput, EvidenceItem } from "./input.js";
import type { Manifest } from "./manifest-schema.js";
import { visibleText } from "./render.js";
import { defaultTrust } from "./render.js";

/** The parent revision a child context starts from. */
export const ForkOriginSchema = z.object({
  /** The parent's run-state revision at the fork. */
  parentRevision: z.number().int().nonnegative(),
  parentContextRevision: z.number().int().nonnegative(),
  /** requestHash of the parent manifest the fork was taken from. */
  parentRequestHash: z.string(),
  /** Parent item ids handed to the child as evidence. */
  shared: z.array(z.string()),
});
export type ForkOrigin = z.infer<typeof ForkOriginSchema>;

/** What a claim rests on: an item id the child was shown (`parent:<id>` for shared ones) or an artifact `sha256:<hex>`. */
export const EvidenceRefSchema = z.object({ ref: z.string().min(1), quote: z.string().optional() });
export type EvidenceRef = z.infer<typeof EvidenceRefSchema>;

export const ClaimSchema = z.object({
  claim: z.string().min(1),
  confidence: z.enum(["low", "medium", "high"]),
  evidence: z.array(EvidenceRefSchema).min(1),
});
export type Claim = z.infer<typeof ClaimSchema>;

/**
 * What a subagent hands back: typed claims with evidence references, never its transcript.
 *
 * @example
 * ```ts
 * const result: ChildResult = {
 *   origin, status: "completed",
 *   claims: [{ claim: "the test fails on a null id", confidence: "high", evidence: [{ ref: "parent:event:14" }] }],
 * };
 * ```
 */
export const ChildResultSchema = z.object({
  origin: ForkOriginSchema,
  status: z.enum(["completed", "failed", "budget_exhausted"]),
  claims: z.array(ClaimSchema),
  /** requestHash of the child's last compiled request. */
  childRequestHash: z.string().optional(),
});
export type ChildResult = z.infer<typeof ChildResultSchema>;

export interface ForkOptions {
  readonly task: string;
  /** Parent item ids (transcript messages or evidence) the child may see. */
  readonly share?: readonly string[];
  /** The child's tools (default: the parent's). */
  readonly tools?: readonly ToolSpec[];
  readonly systemPrompt?: string;
}

/**
 * Starts a child context from an explicit parent revision: the parent's pinned constraints
 * (never dropped), the shared items as evidence with their original trust, a new task, and
 * an empty transcript. Throws CONFIG_INVALID when a shared id is not in the parent manifest.
 *
 * @example
 * ```ts
 * const { input: childInput, origin } = forkContext({ input, manifest }, { task: "find why test X fails", share: ["event:14"] });
 * ```
 */
export function forkContext(
  parent: { readonly input: ContextInput; readonly manifest: Manifest },
  options: ForkOptions,
): { input: ContextInput; origin: ForkOrigin } {
  const shared = options.share ?? [];
  const known = new Map(parent.manifest.items.map((item) => [item.id, item]));
  const transcript = new Map(parent.input.transcript.map((entry) => [entry.id, entry]));
  const evidenceById = new Map((parent.input.evidence ?? []).map((item) => [item.id, item]));
  const evidence: EvidenceItem[] = shared.map((id, index) => {
    const item = known.get(id);
    const message = transcript.get(id);
    const original = evidenceById.get(id);
    if (item === undefined || (message === undefined && original === undefined)) {
      throw new YokeError("CONFIG_INVALID", `cannot share ${id}: it is not an item of the parent revision`, { details: { id } });
    }
    const text = original?.text ?? visibleText(message!.message);
    // Shared items keep their trust; a principal's message becomes data in the child.
    const trust = original?.trust ?? (message === undefined ? "retrieved" : (message.trust ?? defaultTrust(message.message)));
    return {
      id: `parent:${id}`,
      kind: "evidence",
      text,
      priority: shared.length - index,
      trust: trust === "tool_output" || trust === "remote_tool_description" ? trust : "retrieved",
    };
  });
  const systemPrompt = options.systemPrompt ?? parent.input.systemPrompt;
  const input: ContextInput = {
    revision: 0,
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    task: options.task,
    tools: options.tools ?? parent.input.tools,
    ...(parent.input.remoteTools === undefined ? {} : { remoteTools: parent.input.remoteTools }),
    ...(options.tools === undefined && parent.input.toolRevisions !== undefined ? { toolRevisions: parent.input.toolRevisions } : {}),
    transcript: [],
    constraints: parent.input.constraints ?? [],
    evidence,
  };
  const origin: ForkOrigin = {
    parentRevision: parent.manifest.revision,
    parentContextRevision: parent.manifest.contextRevision,
    parentRequestHash: parent.manifest.requestHash,
    shared: shared.slice(),
  };
  return { input, origin };
}

/**
 * Validates a child's result: its shape, its origin, and that every evidence reference names
 * something the child was shown (a manifest item id) or an artifact hash it may cite.
 *
 * @example
 * ```ts
 * const checked = checkChildResult(raw, { origin, childManifest });
 * if (!checked.ok) escalate(checked.issues);
 * ```
 */
export function checkChildResult(
  value: unknown,
  expected: { readonly origin: ForkOrigin; readonly childManifest: Manifest; readonly artifactHashes?: ReadonlySet<string> },
): { ok: true; result: ChildResult } | { ok: false; issues: string[] } {
  const parsed = ChildResultSchema.safeParse(value);
  if (!parsed.success) return { ok: false, issues: parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`) };
  const result = parsed.data;
  const issues: string[] = [];
  if (result.origin.parentRequestHash !== expected.origin.parentRequestHash || result.origin.parentRevision !== expected.origin.parentRevision) {
    issues.push("origin: the result names another parent revision");
  }
  const shown = new Set(expected.childManifest.items.filter((item) => item.decision !== "omitted").map((item) => item.id));
  result.claims.forEach((claim, index) => {
    for (const evidence of claim.evidence) {
      const hash = evidence.ref.startsWith("sha256:") ? evidence.ref.slice("sha256:".length) : undefined;
      const ok = shown.has(evidence.ref) || (hash !== undefined && expected.artifactHashes?.has(hash) === true);
      if (!ok) issues.push(`claims.${index}: evidence ${evidence.ref} was not shown to the child`);
    }
  });
  return issues.length === 0 ? { ok: true, result } : { ok: false, issues };
}
