import type { SchemaLike } from "@yoke/protocol";
import type { HarnessBudgetOptions } from "./budget.js";
import type { HarnessEnvironmentOptions } from "./environment.js";
import type { HarnessLoopOptions } from "./loop.js";
import type { HarnessModelOptions } from "./model.js";
import type { HarnessObservabilityOptions } from "./observability.js";
import type { HarnessPolicyOptions } from "./policy.js";
import type { HarnessStoreOptions } from "./store.js";
import type { HarnessToolOptions } from "./tools.js";

/**
 * How to build a harness. Everything with a side effect or a source of nondeterminism is
 * passed in: journal, provider, clock, ids, logger, sleep.
 *
 * The options are grouped by concern, each group a documented interface of its own:
 * - `HarnessStoreOptions`: journal, tenant, lease, artifact store;
 * - `HarnessModelOptions`: provider, system prompt, request compilation (`context`), retries,
 *   call deadline, structured output;
 * - `HarnessToolOptions`: tools or registry, discovery, subagents, call and size limits;
 * - `HarnessPolicyOptions`: policy, principal, approval expiry, capabilities;
 * - `HarnessBudgetOptions`: turns and budget limits;
 * - `HarnessLoopOptions`: completion gate, verifiers, loop detection, continuations,
 *   workspace, interrupts;
 * - `HarnessObservabilityOptions`: logger, `onEvent`, secrets;
 * - `HarnessEnvironmentOptions`: clock, ids, sleep, timers, runtime version, releases.
 *
 * The grouping is in the types only: `HarnessOptions` extends every group, and you still
 * write one flat object. Nesting the groups (`{ model: { provider } }`) would break every
 * harness already written for no gain in what can be expressed, and several options act
 * across groups (a `budget` also bounds `subagents`, `principal` is seen by `discovery` and
 * the policy alike), so a flat object keeps each option in one place. Use a group to type a
 * piece of configuration you build apart and spread in: `createHarness({ ...store, ...model })`.
 *
 * Options marked `@experimental` (`discovery`, `subagents`, `capabilities`,
 * `principal.scopes`, `workspace`, `interrupts`, `runtimeVersion`) are not settled: they
 * may change in a minor release, with a changeset saying how.
 *
 * @example
 * ```ts
 * const harness = createHarness({
 *   journal: createMemoryJournal(),
 *   provider: createScriptedModel([say("done")]),
 *   tools: [echo],
 *   tenantId: "tenant_a",
 *   clock: steppingClock(0, 1),
 *   ids: sequentialIdSource(),
 *   maxToolCallsPerTurn: 16, // calls past 16 in one response go back as TOOL_CALL_LIMIT
 *   maxConcurrentTools: 4, // at most 4 handlers at once
 *   modelCallTimeoutMs: 120_000, // PROVIDER_TIMEOUT after 2 minutes, then retried
 *   artifacts: createFileArtifactStore({ directory: "runs/artifacts" }), // tool outputs past 256 KiB go here
 * });
 * ```
 */
export interface HarnessOptions<OutputSchema extends SchemaLike | undefined = SchemaLike | undefined>
  extends HarnessStoreOptions,
    HarnessModelOptions<OutputSchema>,
    HarnessToolOptions,
    HarnessPolicyOptions,
    HarnessBudgetOptions,
    HarnessLoopOptions,
    HarnessObservabilityOptions,
    HarnessEnvironmentOptions {}
