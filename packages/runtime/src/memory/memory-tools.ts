import { YokeError, systemClock, type Clock, type JsonValue, type ToolCallContext } from "@yoke/protocol";
import { z } from "zod/v4";
import { defineTool } from "../define-tool.js";
import type { MemoryAddress, MemoryRecord, MemoryScope, MemoryStore } from "./memory-store.js";

/** The role the content argument plays for policy: a rule's `provenance` can require it to be trusted. */
export const MEMORY_CONTENT_ROLE = "memory-content";

export interface MemoryToolsOptions {
  readonly store: MemoryStore;
  /** Where `ttlMs` and expiry are measured; default the wall clock (pass the harness's clock). */
  readonly clock?: Clock;
  /** Tool names; default `remember`, `recall`, `forget`. */
  readonly names?: { readonly remember?: string; readonly recall?: string; readonly forget?: string };
}

const Scope = z.enum(["run", "session", "tenant"]).describe("run: this run only; session: every run of this session; tenant: every run of this tenant");
const Key = z.string().min(1).max(200);

const RememberInput = z.object({
  scope: Scope,
  key: Key,
  content: z.string().max(16_384),
  ttlMs: z.number().int().positive().optional().describe("forget it this many milliseconds from now"),
  expiresAt: z.number().int().optional().describe("forget it at this time (ms since the epoch)"),
});
const AddressInput = z.object({ scope: Scope, key: Key });

/**
 * The `remember` tool family: memory writes are actions like any other effect. `remember`
 * (reversible: its compensation restores what it replaced; reconciled by the action that
 * wrote) and `forget` (idempotent) carry policy facts — verb `memory.write`, resource
 * `memory:<scope>:<key>`, and the content argument as a destination-like argument of role
 * `memory-content` — so a policy decides each write on its whole tuple, and a rule can require
 * that what becomes a session- or tenant-wide memory did not come from untrusted content
 * alone. `recall` reads (verb `memory.read`); what it returns is tool output, untrusted like
 * any other. Memories are keyed by the run's tenant, session or run id (`context.run`).
 *
 * @example
 * ```ts
 * const memory = createMemoryTools({ store: createMemoryStore(), clock });
 * const harness = createHarness({ provider, tools: [memory.remember, memory.recall, memory.forget], policy, clock });
 * ```
 */
export function createMemoryTools(options: MemoryToolsOptions) {
  const { store } = options;
  if (typeof store?.put !== "function" || typeof store.get !== "function") {
    throw new YokeError("CONFIG_INVALID", "createMemoryTools: store must implement MemoryStore", { details: { option: "store" } });
  }
  const clock = options.clock ?? systemClock();
  const names = { remember: "remember", recall: "recall", forget: "forget", ...options.names };

  const remember = defineTool({
    name: names.remember,
    description: "Remember a piece of text under a key, for this run, this session or every run of this tenant.",
    input: RememberInput,
    sideEffect: "reversible",
    access: ({ scope, key }) => ({ reads: [], writes: [resourceOf(scope, key)] }),
    policy: ({ scope, key }) => ({
      verb: "memory.write",
      resource: resourceOf(scope, key),
      destinations: [{ pointer: "/content", role: MEMORY_CONTENT_ROLE }],
    }),
    async execute({ scope, key, content, ttlMs, expiresAt }, context) {
      const address = addressOf(scope, key, context);
      const now = clock.now();
      const expiry = expiresAt ?? (ttlMs === undefined ? null : now + ttlMs);
      if (expiry !== null && expiry <= now) throw new YokeError("TOOL_INPUT_INVALID", "the expiry is not in the future");
      const previous = (await store.get(address, now)) ?? null;
      await store.put({ ...address, content, writtenBy: context.actionId, writtenAt: now, expiresAt: expiry });
      return {
        content: `remembered ${key} (${scope})`,
        output: { scope, key, expiresAt: expiry },
        receipt: { address: { ...address }, previous: recordJson(previous) },
      };
    },
    async reconcile(actionId) {
      return (await store.writtenBy(actionId, clock.now())) === undefined ? { status: "not_applied" } : { status: "applied" };
    },
    async compensate(_input, context) {
      const receipt = context.receipt as { address?: MemoryAddress; previous?: MemoryRecord | null } | undefined;
      if (receipt?.address === undefined) return;
      if (receipt.previous) await store.put(receipt.previous);
      else await store.delete(receipt.address, clock.now());
    },
  });

  const recall = defineTool({
    name: names.recall,
    description: "Recall the text remembered under a key in a scope.",
    input: AddressInput,
    sideEffect: "none",
    policy: ({ scope, key }) => ({ verb: "memory.read", resource: resourceOf(scope, key) }),
    async execute({ scope, key }, context) {
      const record = await store.get(addressOf(scope, key, context), clock.now());
      if (record === undefined) return { content: `nothing remembered under ${key} (${scope})`, output: { found: false } };
      return { content: record.content, output: { found: true, content: record.content, expiresAt: record.expiresAt } };
    },
  });

  const forget = defineTool({
    name: names.forget,
    description: "Forget what was remembered under a key in a scope.",
    input: AddressInput,
    sideEffect: "idempotent",
    access: ({ scope, key }) => ({ reads: [], writes: [resourceOf(scope, key)] }),
    policy: ({ scope, key }) => ({ verb: "memory.write", resource: resourceOf(scope, key) }),
    async execute({ scope, key }, context) {
      const removed = await store.delete(addressOf(scope, key, context), clock.now());
      return { content: removed ? `forgot ${key} (${scope})` : `nothing remembered under ${key} (${scope})`, output: { removed } };
    },
  });

  return { remember, recall, forget };
}

function resourceOf(scope: MemoryScope, key: string): string {
  return `memory:${scope}:${key}`;
}

function addressOf(scope: MemoryScope, key: string, context: ToolCallContext): MemoryAddress {
  const run = context.run;
  if (run === undefined) throw new YokeError("CONFIG_INVALID", "the memory tools need context.run (the tenant, session and run a call serves)");
  const scopeId = scope === "run" ? run.runId : scope === "session" ? run.sessionId : run.tenantId;
  return { tenantId: run.tenantId, scope, scopeId, key };
}

function recordJson(record: MemoryRecord | null): JsonValue {
  return record === null ? null : { ...record };
}
