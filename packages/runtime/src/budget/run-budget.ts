import {
  YokeError,
  type BudgetAmounts,
  type BudgetReservation,
  type BudgetSettlement,
  type ChargeAttribution,
  type ModelResponse,
  type RunState,
  type Usage,
  type YokeEventDraft,
} from "@yoke/protocol";
import { addAmounts } from "@yoke/budget";
import type { DispatchItem } from "@yoke/scheduler";
import { childReservationIdOf, childRunIdOf, SPAWN_SUBAGENT } from "../subagents/subagent-options.js";
import type { BudgetDeps, SettledWork } from "./budget-carriers.js";
import { BudgetBook, type OpenReservation } from "./budget-book.js";
import { ModelPricing } from "./model-pricing.js";
import { CHECK_ID, type DispatchedTool, type Exhaustion, evenShare, exhausted, isExhaustion, sumOf } from "./budget-steps.js";

export { isExhaustion, type Exhaustion, type DispatchedTool } from "./budget-steps.js";
export type { BudgetDeps, BudgetStep, SettledWork } from "./budget-carriers.js";

/**
 * The budget of one run as this process holds it: the ledger (rebuilt on resume from the
 * journal's reservations and settlements), the open model-call, verifier and tool-attempt
 * reservations and the wall-time mark (the clock time up to which wall time is charged).
 * Admission methods return reservations and settlements; the caller journals each on the
 * event that starts or ends the work (`carry`), in the commit it already makes: a budget
 * adds no event to a turn.
 */
export class RunBudget extends BudgetBook {
  readonly #pricing: ModelPricing;

  constructor(deps: BudgetDeps, runId: string) {
    super(deps, runId);
    this.#pricing = new ModelPricing(deps);
  }

  /**
   * Reserves the worst case of the next model call of `turnId`: the compiled request's input
   * tokens plus the output reserve, their price, one turn when it starts the turn, and the
   * wall time it may take (the time since the last charge plus the call's deadline, at most
   * what is left). Journal it as `model.requested`'s `reserved`. An exhaustion names the
   * dimension and the reservation that bound.
   */
  reserveModelCall(turnId: string, request: { inputTokens: number; outputReserve: number }, startsTurn: boolean): BudgetReservation | Exhaustion | undefined {
    const ledger = this.ledger;
    const budget = this.deps.budget;
    if (ledger === undefined || budget === undefined) return undefined;
    const output = budget.outputReserve ?? request.outputReserve;
    const input = request.inputTokens;
    const elapsed = this.elapsed();
    const left = ledger.remainingOf(this.budgetId!, "wall_time");
    const deadline = elapsed + this.deps.modelCallTimeoutMs * (this.deps.modelRetries + 1);
    // Keys in code-unit order, as canonical JSON writes them (journaled without a sorted copy).
    const amounts: BudgetAmounts = {};
    if (budget.limits.cache_read_tokens !== undefined) amounts.cache_read_tokens = input;
    if (budget.limits.cache_write_tokens !== undefined) amounts.cache_write_tokens = input;
    amounts.input_tokens = input;
    amounts.output_tokens = output;
    if (budget.pricing !== undefined) amounts.spend = this.#pricing.worstSpend(input, output);
    amounts.tokens = input + output;
    if (startsTurn) amounts.turns = 1;
    amounts.wall_time = left === undefined ? deadline : Math.max(elapsed + 1, Math.min(left, deadline));
    const attribution: ChargeAttribution = { kind: "model_call", runId: this.runId, turnId };
    return this.hold(amounts, attribution, (open) => {
      this.modelCall = open;
    });
  }

  /** The open model call was answered: its settlement (journal it as `model.responded`'s `settled`) to the response's usage, overshoot when it used more than held. */
  settleModelCall(response: ModelResponse): BudgetSettlement | undefined {
    const open = this.modelCall;
    if (open === undefined || this.ledger === undefined) return undefined;
    this.modelCall = undefined;
    return this.charge(open, this.#usageCharge(open, response.usage, { provider: response.provider, model: response.model }));
  }

  /**
   * The open model call was cut (a cancellation aborted it) and no answer came: its usage is
   * unknown, and the budget never counts unknown as zero (a run cut and resumed again and
   * again would otherwise spend without bound): it is charged everything it held (the
   * compiled request's tokens and the output reserve, their price, its turn) and the wall
   * time it took. Journal it as `budget.settled`.
   */
  settleCutModelCall(): BudgetSettlement | undefined {
    const open = this.modelCall;
    if (open === undefined || this.ledger === undefined) return undefined;
    this.modelCall = undefined;
    const { concurrency: _gauge, wall_time: _held, ...held } = open.amounts;
    return this.charge(open, { ...held, wall_time: this.elapsed() });
  }

  /**
   * A model call attempt failed and another follows: the failed attempt is charged as
   * discarded work (a reservation attributed `discarded`, settled at once to the wall time it
   * took; a provider that failed reports no usage), journaled with the `model.failed`. The
   * call's own reservation stays open for the retry.
   */
  retryModelCall(failure: { attempt: number; code: string }): YokeEventDraft[] {
    const open = this.modelCall;
    if (open === undefined || this.ledger === undefined) return [];
    const attribution: ChargeAttribution = { ...open.attribution, discarded: true, note: `attempt ${failure.attempt} failed (${failure.code})` };
    const elapsed = this.elapsed();
    let discarded: OpenReservation | undefined;
    const reserved = this.hold({ wall_time: elapsed }, attribution, (held) => {
      discarded = held;
    });
    if (isExhaustion(reserved) || discarded === undefined) return [];
    return [this.reservedDraft(reserved), this.settledDraft(this.charge(discarded, { wall_time: elapsed }), attribution)];
  }

  /**
   * Whether the dispatches of `tools` fit (tool operations, concurrency, wall time); checked
   * before any call of a response is admitted, so a batch runs whole or not at all.
   */
  admitDispatches(tools: readonly DispatchedTool[]): Exhaustion | undefined {
    const ledger = this.ledger;
    if (ledger === undefined || tools.length === 0) return undefined;
    const result = ledger.check({
      reservationId: CHECK_ID,
      parentId: this.budgetId!,
      amounts: sumOf(this.#dispatchAmounts(tools)),
      attribution: { kind: "tool_attempt", runId: this.runId },
    });
    return result.ok ? undefined : exhausted(result);
  }

  /** Whether this run's budget bounds wall time: then every dispatch holds its share of it. */
  #wallBounded(): boolean {
    return this.ledger?.limits.wall_time !== undefined;
  }

  /**
   * What each dispatch of `tools` holds: a tool operation and a unit of concurrency (a spawn
   * also a child and its whole budget); when wall time is bounded, an even share of the
   * batch's worst case (the time since the last charge plus every tool's timeout, as if they
   * ran one after the other, at most what is left).
   */
  #dispatchAmounts(tools: readonly DispatchedTool[]): BudgetAmounts[] {
    if (!this.#wallBounded()) return tools.map((tool) => this.#attemptAmounts(tool.name));
    const elapsed = this.elapsed();
    const worst = elapsed + tools.reduce((sum, tool) => sum + Math.max(1, tool.timeoutMs), 0);
    const left = this.ledger!.remainingOf(this.budgetId!, "wall_time") ?? worst;
    const wall = Math.max(elapsed + tools.length, Math.min(left, worst));
    return tools.map((tool, index) => {
      const share = evenShare(wall, tools.length, index);
      // A plain dispatch's amounts written out, keys in code-unit order (what addAmounts would give).
      return this.#spawns(tool.name) ? addAmounts(this.#attemptAmounts(tool.name), { wall_time: share }) : { concurrency: 1, tool_ops: 1, wall_time: share };
    });
  }

  /** What one dispatch of `toolName` holds: a tool operation and a unit of concurrency; a spawn also a child and its whole budget. */
  #attemptAmounts(toolName: string): BudgetAmounts {
    if (!this.#spawns(toolName)) return { concurrency: 1, tool_ops: 1 };
    return addAmounts(this.deps.subagents!.budget, { tool_ops: 1, concurrency: 1, fan_out: 1 });
  }

  /** Whether a dispatch of `toolName` starts a child run (this harness spawns subagents). */
  #spawns(toolName: string): boolean {
    return this.deps.subagents !== undefined && toolName === SPAWN_SUBAGENT;
  }

  /**
   * Reserves the dispatches of leased attempts that hold no reservation yet (one tool
   * operation, one unit of concurrency, a share of the wall time when it is bounded). A
   * `spawn_subagent` attempt also holds one child (`fan_out`) and the child's whole budget,
   * attributed `subagent`, under an id the child's `budget.opened.parent` names. Journal each
   * on the event that leases its attempt (`carry`), before the dispatch. All or nothing: an
   * exhaustion reserves none of them. Checked again even when `admitDispatches` passed a
   * superset: the clock may have moved since (a slow policy decision), and a share of the wall
   * time that fitted then may not fit now.
   */
  reserveAttempts(items: readonly DispatchItem[], turnId: string | undefined): BudgetReservation[] | Exhaustion {
    const ledger = this.ledger;
    const fresh = items.filter((item) => !this.attempts.has(item.attemptId));
    if (ledger === undefined || fresh.length === 0) return [];
    const amounts = this.#dispatchAmounts(fresh.map((item) => ({ name: item.tool.name, timeoutMs: item.tool.timeoutMs })));
    // Checked whole first (under an id never journaled): a batch is reserved whole or not at all.
    const fits = ledger.check({
      reservationId: CHECK_ID,
      parentId: this.budgetId!,
      amounts: sumOf(amounts),
      attribution: { kind: "tool_attempt", runId: this.runId },
    });
    if (!fits.ok) return exhausted(fits);
    return fresh.map((item, index) => {
      const spawn = this.deps.subagents !== undefined && item.tool.name === SPAWN_SUBAGENT;
      // Keys in code-unit order, as canonical JSON writes them.
      const attribution: ChargeAttribution = {
        actionId: item.actionId,
        attemptId: item.attemptId,
        ...(spawn ? { childRunId: childRunIdOf(item.actionId) } : {}),
        kind: spawn ? "subagent" : "tool_attempt",
        runId: this.runId,
        ...(turnId === undefined ? {} : { turnId }),
      };
      const reserved = this.hold(
        amounts[index]!,
        attribution,
        (open) => {
          this.attempts.set(item.attemptId, open);
        },
        spawn ? childReservationIdOf(item.attemptId) : undefined,
      );
      if (isExhaustion(reserved)) throw new YokeError("INTERNAL", `a dispatch checked as fitting the budget did not fit (${reserved.budget})`);
      return reserved;
    });
  }

  /** Whether an attempt holds a reservation. */
  holds(attemptId: string): boolean {
    return this.attempts.has(attemptId);
  }

  /**
   * Attempts settled, all at this clock time: each dispatched one is charged one tool
   * operation and an even share of the wall time since the last charge (the time the batch
   * ran: parallel dispatches share it, none is charged twice); one never dispatched is
   * released in full. A spawn is charged what its child was charged in all (known once the
   * child ended in this process), else everything it held: a child can never spend past it.
   * Journal each on its attempt's outcome (`carry`).
   */
  settleAttempts(attempts: readonly { readonly attemptId: string; readonly dispatched: boolean }[]): Map<string, SettledWork> {
    const settled = new Map<string, SettledWork>();
    if (this.ledger === undefined) return settled;
    const held = attempts.filter((attempt) => this.attempts.has(attempt.attemptId));
    const dispatched = held.filter((attempt) => attempt.dispatched);
    const wall = dispatched.length === 0 ? 0 : this.elapsed();
    let share = 0;
    for (const attempt of held) {
      const wallShare = attempt.dispatched ? evenShare(wall, dispatched.length, share++) : 0;
      const { attribution } = this.attempts.get(attempt.attemptId)!;
      settled.set(attempt.attemptId, { entry: { kind: "settled", data: this.#settleAttempt(attempt.attemptId, attempt.dispatched, wallShare) }, attribution });
    }
    return settled;
  }

  #settleAttempt(attemptId: string, dispatched: boolean, wall: number): BudgetSettlement {
    const open = this.attempts.get(attemptId)!;
    this.attempts.delete(attemptId);
    if (!dispatched) return this.charge(open, {});
    const wallCharge = wall === 0 ? {} : { wall_time: wall };
    if (open.attribution.kind !== "subagent") return this.charge(open, wall === 0 ? { tool_ops: 1 } : { tool_ops: 1, wall_time: wall });
    const child = this.deps.subagents?.charges.get(attemptId);
    this.deps.subagents?.charges.delete(attemptId);
    const { concurrency: _gauge, wall_time: heldWall, ...held } = open.amounts;
    // The parent charges its own wall time (the child's runs inside it).
    const { wall_time: _inside, ...childCharge } = child ?? {};
    if (child === undefined) return this.charge(open, { ...held, ...(heldWall === undefined ? wallCharge : { wall_time: Math.max(heldWall, wall) }) });
    return this.charge(open, addAmounts(childCharge, { tool_ops: 1, fan_out: 1, ...wallCharge }));
  }

  /**
   * Settles the reservations of attempts a resume's recovery moved on (reconciled, failed,
   * replaced by a new attempt): each was executing when its process stopped, so its operation
   * is charged. Journaled as `budget.settled` (nothing else ends that work).
   */
  settleSuperseded(state: RunState): YokeEventDraft[] {
    const stale: { attemptId: string; dispatched: boolean }[] = [];
    for (const [attemptId, open] of this.attempts) {
      const record = state.actions.find((action) => action.actionId === open.attribution.actionId);
      const live = record !== undefined && record.attemptId === attemptId && (record.status.state === "leased" || record.status.state === "executing");
      if (!live) stale.push({ attemptId, dispatched: true });
    }
    return this.#settledDrafts(stale);
  }

  /** Settles every attempt reservation still open (charged: each was dispatched), before a run ends around them: `budget.settled` each. */
  settleOpenAttempts(): YokeEventDraft[] {
    return this.#settledDrafts([...this.attempts.keys()].map((attemptId) => ({ attemptId, dispatched: true })));
  }

  #settledDrafts(attempts: readonly { attemptId: string; dispatched: boolean }[]): YokeEventDraft[] {
    return [...this.settleAttempts(attempts).values()].map(({ entry, attribution }) => this.settledDraft(entry.data, attribution));
  }

  /**
   * Reserves a verifier run of the completion gate (attribution `verifier`): what the
   * verifier declares (`reserve`, e.g. a command's timeout as wall time), else a model call's
   * deadline of wall time (at most what is left), plus the time since the last charge. Journal it as `verifier.started`'s
   * `reserved`; an exhaustion ends the run `budget_exhausted` before the verifier runs.
   */
  reserveVerifier(turnId: string, verifierRunId: string, declared: BudgetAmounts | undefined): BudgetReservation | Exhaustion | undefined {
    const ledger = this.ledger;
    if (ledger === undefined) return undefined;
    const elapsed = this.elapsed();
    const amounts: BudgetAmounts = { ...declared, wall_time: elapsed + (declared?.wall_time ?? this.#undeclaredVerifierWall(elapsed)) };
    const attribution: ChargeAttribution = { kind: "verifier", runId: this.runId, turnId, verifierRunId };
    return this.hold(amounts, attribution, (open) => {
      this.verifier = open;
    });
  }

  /**
   * The wall time held for a verifier that declares none (an in-process check, `checkCompletion`):
   * its duration is unknown, so as long as a model call may take (`modelCallTimeoutMs`), at most
   * what is left, at least one unit: it is not refused for lack of room a few milliseconds would
   * fit in, and it overshoots only when it runs longer than that.
   */
  #undeclaredVerifierWall(elapsed: number): number {
    const left = this.ledger!.remainingOf(this.budgetId!, "wall_time");
    const bound = left === undefined ? this.deps.modelCallTimeoutMs : Math.min(left - elapsed, this.deps.modelCallTimeoutMs);
    return Math.max(1, bound);
  }

  /** The verifier run finished: charged its wall time (since the last charge, on the injected clock); journal it as `verifier.finished`'s `settled`. */
  settleVerifier(): BudgetSettlement | undefined {
    const open = this.verifier;
    if (open === undefined || this.ledger === undefined) return undefined;
    this.verifier = undefined;
    return this.charge(open, { wall_time: this.elapsed() });
  }

  /** The verifier reservation still open (a verifier a crash cut short), settled as `budget.settled`: it ran, so its time is charged. */
  settleOpenVerifier(): YokeEventDraft | undefined {
    const open = this.verifier;
    const settled = this.settleVerifier();
    return settled === undefined ? undefined : this.settledDraft(settled, open?.attribution);
  }

  #usageCharge(open: OpenReservation, usage: Usage, model: { provider: string; model: string }): BudgetAmounts {
    // Keys in code-unit order, as canonical JSON writes them.
    const charge: BudgetAmounts = {};
    if (usage.cacheReadTokens !== undefined) charge.cache_read_tokens = usage.cacheReadTokens;
    if (usage.cacheWriteTokens !== undefined) charge.cache_write_tokens = usage.cacheWriteTokens;
    charge.input_tokens = usage.inputTokens;
    charge.output_tokens = usage.outputTokens;
    if (this.deps.budget?.pricing !== undefined) charge.spend = this.#pricing.spendOf(usage, model, open.amounts.spend ?? 0);
    charge.tokens = usage.inputTokens + usage.outputTokens;
    if (open.amounts.turns !== undefined) charge.turns = open.amounts.turns;
    charge.wall_time = this.elapsed();
    return charge;
  }
}
