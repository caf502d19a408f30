import { RunStateAccumulator, YokeError, type RunScope } from "@yoke/protocol";
import { observeCompiled, type CompiledContext } from "./compiled-context.js";
import { takeRunLease, type HeldLease } from "./run-lease.js";
import { createLiveFold, type HarnessDeps, type RunContext } from "./run-context.js";
import { redactError } from "./redaction.js";
import { createInterruptInbox } from "./interrupts.js";
import { createRunFacts, observeRunFacts, type RunFacts } from "./loop/run-facts.js";
import { signatureRules } from "./loop-detection.js";
import { RunBudget } from "./budget/run-budget.js";

/**
 * Runs `body` holding the run's lease (when the journal offers leases): taken before the
 * journal is read, so whatever `executing` attempt the run holds was left by an owner whose
 * lease lapsed; released however `body` ends. An error it throws has the harness's
 * `secrets` cut out of its message and details.
 */
export async function owned<T>(
  deps: HarnessDeps,
  scope: RunScope,
  options: { signal: AbortSignal | undefined; wait?: boolean | number | undefined },
  body: (lease: HeldLease | undefined) => Promise<T>,
): Promise<T> {
  try {
    return await leased(deps, scope, options, body);
  } catch (error) {
    throw deps.redactor === undefined ? error : redactError(deps.redactor, error);
  }
}

async function leased<T>(
  deps: HarnessDeps,
  scope: RunScope,
  options: { signal: AbortSignal | undefined; wait?: boolean | number | undefined },
  body: (lease: HeldLease | undefined) => Promise<T>,
): Promise<T> {
  if (deps.lease === undefined) return body(undefined);
  const lease = await takeRunLease(deps.lease, scope, {
    ...(options.wait === undefined ? {} : { wait: options.wait }),
    signal: options.signal,
    sleep: deps.sleep,
    timers: deps.timers,
    now: () => deps.clock.now(),
    logger: deps.logger.child({ tenantId: scope.tenantId, runId: scope.runId }),
  });
  try {
    return await body(lease);
  } finally {
    await lease.end();
  }
}

/** Folds a run's events as they stream from the journal (never collected in memory); with `compiled`, `budget` and `facts`, its context, ledger and loop facts too. */
export async function load(deps: HarnessDeps, scope: RunScope, compiled?: CompiledContext, budget?: RunBudget, facts?: RunFacts): Promise<RunStateAccumulator> {
  const accumulator = new RunStateAccumulator();
  let any = false;
  for await (const event of deps.journal.read(scope)) {
    const typed = accumulator.apply(event);
    if (compiled !== undefined) observeCompiled(compiled, typed);
    if (facts !== undefined) observeRunFacts(facts, typed);
    budget?.observe(typed);
    any = true;
  }
  if (!any) throw notFound(scope);
  return accumulator;
}

export function newContext(
  deps: HarnessDeps,
  scope: RunScope,
  accumulator: RunStateAccumulator,
  compiled: CompiledContext,
  signal: AbortSignal | undefined,
  lease: HeldLease | undefined,
  budget: RunBudget = new RunBudget(deps, scope.runId),
  facts: RunFacts = createRunFacts(signatureRules(deps)),
): RunContext {
  return {
    deps,
    scope,
    accumulator,
    signal,
    logger: deps.logger.child({ tenantId: scope.tenantId, runId: scope.runId }),
    dispatchable: new Map(),
    compilers: new Map(),
    compiled,
    live: createLiveFold(),
    lease,
    revisions: new Map(),
    facts,
    inbox: createInterruptInbox(),
    media: new Map(),
    budget,
  };
}

export function notFound(scope: RunScope): YokeError {
  return new YokeError("RUN_NOT_FOUND", `no run ${scope.runId} for tenant ${scope.tenantId}`, { details: { ...scope } });
}
