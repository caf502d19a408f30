import {
  newId,
  YokeError,
  type BudgetAmounts,
  type Clock,
  type IdSource,
  type ProviderAdapterV1,
  type BudgetDimension,
  type ChargeAttribution,
  type ModelResponse,
  type Outcome,
  type RunState,
  type Usage,
  type YokeEvent,
  type YokeEventDraft,
} from "@yoke/protocol";
import { addAmounts, createBudgetLedger, createPricing, type BudgetLedger } from "@yoke/budget";
import { childReservationIdOf, childRunIdOf, SPAWN_SUBAGENT } from "../subagents/subagent-options.js";
import type { ResolvedBudget } from "./budget-options.js";

/** What a run's budget needs of the harness (a subset of its resolved options). */
export interface BudgetDeps {
  readonly budget: ResolvedBudget | undefined;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly provider: Pick<ProviderAdapterV1, "provider" | "modelId">;
  readonly modelCallTimeoutMs: number;
  readonly modelRetries: number;
  readonly subagents?: { readonly budget: BudgetAmounts; readonly charges: Map<string, BudgetAmounts> } | undefined;
}

/** A reservation this process knows is open: what it holds and for what. */
interface OpenReservation {
  readonly reservationId: string;
  readonly amounts: BudgetAmounts;
  readonly attribution: ChargeAttribution;
}

/** Why admission refused: the outcome the run ends with. */
export type Exhaustion = Extract<Outcome, { status: "budget_exhausted" }>;

/**
 * The budget of one run as this process holds it: the ledger (rebuilt from `budget.*` events
 * on resume), the open model-call reservation, the open tool-attempt reservations and the
 * wall-time mark (the clock time up to which wall time is charged). Admission methods return
 * event drafts; the caller journals them in the commit it already makes.
 */
export class RunBudget {
  #ledger: BudgetLedger | undefined;
  #budgetId: string | undefined;
  #wallMark = 0;
  #modelCall: OpenReservation | undefined;
  readonly #attempts = new Map<string, OpenReservation>();
  readonly #runId: string;
  readonly #deps: BudgetDeps;

  constructor(deps: BudgetDeps, runId: string) {
    this.#deps = deps;
    this.#runId = runId;
  }

  /** The root reservation (`budget.opened.budgetId`); undefined before the run opened one. */
  get budgetId(): string | undefined {
    return this.#budgetId;
  }

  /** The ledger; undefined for a run journaled without a budget. */
  get ledger(): BudgetLedger | undefined {
    return this.#ledger;
  }

  /** `budget.opened` for a run that starts now, journaled right after `run.started`. */
  open(parent?: { runId: string; actionId: string; reservationId: string }): YokeEventDraft | undefined {
    const budget = this.#deps.budget;
    if (budget === undefined) return undefined;
    const budgetId = newId(this.#deps.ids, "reservation");
    const draft: YokeEventDraft = {
      type: "budget.opened",
      at: this.#deps.clock.now(),
      causationId: null,
      data: {
        budgetId,
        limits: budget.limits,
        ...(budget.pricingRef === undefined ? {} : { pricing: { ...budget.pricingRef } }),
        ...(parent === undefined ? {} : { parent }),
      },
    };
    this.#opened(budgetId, budget.limits, draft.at);
    return draft;
  }

  /** Folds a journaled event (a resume rebuilding the budget). */
  observe(event: YokeEvent): void {
    switch (event.type) {
      case "budget.opened":
        this.#opened(event.data.budgetId, event.data.limits, event.at);
        return;
      case "budget.reserved": {
        this.#ledger?.apply(event);
        const open = { reservationId: event.data.reservationId, amounts: event.data.amounts, attribution: event.data.attribution };
        if (event.data.attribution.kind === "model_call") this.#modelCall = open;
        const { kind, attemptId } = event.data.attribution;
        if ((kind === "tool_attempt" || kind === "subagent") && attemptId !== undefined) this.#attempts.set(attemptId, open);
        return;
      }
      case "budget.settled":
        this.#ledger?.apply(event);
        if (this.#modelCall?.reservationId === event.data.reservationId) this.#modelCall = undefined;
        for (const [attemptId, open] of this.#attempts) if (open.reservationId === event.data.reservationId) this.#attempts.delete(attemptId);
        if ((event.data.charged.wall_time ?? 0) > 0) this.#wallMark = event.at;
        return;
      default:
        return;
    }
  }

  #opened(budgetId: string, limits: BudgetAmounts, at: number): void {
    this.#budgetId = budgetId;
    this.#ledger = createBudgetLedger({ budgetId, limits });
    this.#wallMark = at;
  }

  /**
   * Reserves the worst case of the next model call of `turnId`: the compiled request's input
   * tokens plus the output reserve, their price, one turn when it starts the turn, and the
   * wall time it may take (the time since the last charge plus the call's deadline, at most
   * what is left). An exhaustion names the dimension and the reservation that bound.
   */
  reserveModelCall(turnId: string, request: { inputTokens: number; outputReserve: number }, startsTurn: boolean): YokeEventDraft | Exhaustion | undefined {
    const ledger = this.#ledger;
    const budget = this.#deps.budget;
    if (ledger === undefined || budget === undefined) return undefined;
    const output = budget.outputReserve ?? request.outputReserve;
    const input = request.inputTokens;
    const elapsed = Math.max(0, this.#deps.clock.now() - this.#wallMark);
    const left = ledger.remaining(this.#budgetId!).wall_time;
    const deadline = elapsed + this.#deps.modelCallTimeoutMs * (this.#deps.modelRetries + 1);
    const amounts: BudgetAmounts = {
      ...(startsTurn ? { turns: 1 } : {}),
      tokens: input + output,
      input_tokens: input,
      output_tokens: output,
      ...(budget.limits.cache_read_tokens === undefined ? {} : { cache_read_tokens: input }),
      ...(budget.limits.cache_write_tokens === undefined ? {} : { cache_write_tokens: input }),
      ...(budget.pricing === undefined ? {} : { spend: this.#worstSpend(input, output) }),
      wall_time: left === undefined ? deadline : Math.max(elapsed + 1, Math.min(left, deadline)),
    };
    const attribution: ChargeAttribution = { kind: "model_call", runId: this.#runId, turnId };
    return this.#reserve(amounts, attribution, (open) => {
      this.#modelCall = open;
    });
  }

  /** The open model call was answered: `budget.settled` with the response's usage (overshoot when it used more than held). */
  settleModelCall(response: ModelResponse): YokeEventDraft | undefined {
    const open = this.#modelCall;
    if (open === undefined || this.#ledger === undefined) return undefined;
    this.#modelCall = undefined;
    return this.#settle(open, this.#usageCharge(open, response.usage, { provider: response.provider, model: response.model }));
  }

  /**
   * A model call attempt failed and another follows: the failed attempt is charged as
   * discarded work (a reservation attributed `discarded`, settled at once to the wall time it
   * took; a provider that failed reports no usage), journaled with the `model.failed`. The
   * call's own reservation stays open for the retry.
   */
  retryModelCall(failure: { attempt: number; code: string }): YokeEventDraft[] {
    const open = this.#modelCall;
    if (open === undefined || this.#ledger === undefined) return [];
    const attribution: ChargeAttribution = { ...open.attribution, discarded: true, note: `attempt ${failure.attempt} failed (${failure.code})` };
    const elapsed = this.#elapsed();
    let discarded: OpenReservation | undefined;
    const reserved = this.#reserve({ wall_time: elapsed }, attribution, (held) => {
      discarded = held;
    });
    if (isExhaustion(reserved) || discarded === undefined) return [];
    return [reserved, this.#settle(discarded, { wall_time: elapsed })];
  }

  /**
   * Whether `count` dispatches fit (tool operations, concurrency, wall time); checked before any
   * call of a response is admitted, so a batch runs whole or not at all.
   */
  admitDispatches(toolNames: readonly string[]): Exhaustion | undefined {
    const ledger = this.#ledger;
    if (ledger === undefined || toolNames.length === 0) return undefined;
    let amounts: BudgetAmounts = { wall_time: this.#elapsed() };
    for (const name of toolNames) amounts = addAmounts(amounts, this.#attemptAmounts(name));
    const result = ledger.check({
      reservationId: newId(this.#deps.ids, "reservation"),
      parentId: this.#budgetId!,
      amounts,
      attribution: { kind: "tool_attempt", runId: this.#runId },
    });
    return result.ok ? undefined : exhausted(result);
  }

  /** What one dispatch of `toolName` holds: a tool operation and a unit of concurrency; a spawn also a child and its whole budget. */
  #attemptAmounts(toolName: string): BudgetAmounts {
    const subagents = this.#deps.subagents;
    if (subagents === undefined || toolName !== SPAWN_SUBAGENT) return { tool_ops: 1, concurrency: 1 };
    return addAmounts(subagents.budget, { tool_ops: 1, concurrency: 1, fan_out: 1 });
  }

  /**
   * Reserves one dispatch of an action attempt (one tool operation, one unit of concurrency).
   * A `spawn_subagent` attempt also holds one child (`fan_out`) and the child's whole budget,
   * attributed `subagent`, under an id the child's `budget.opened.parent` names.
   */
  reserveAttempt(item: { actionId: string; attemptId: string; tool: { name: string } }, turnId: string | undefined): YokeEventDraft | Exhaustion | undefined {
    if (this.#ledger === undefined || this.#attempts.has(item.attemptId)) return undefined;
    const spawn = this.#deps.subagents !== undefined && item.tool.name === SPAWN_SUBAGENT;
    const attribution: ChargeAttribution = {
      kind: spawn ? "subagent" : "tool_attempt",
      runId: this.#runId,
      ...(turnId === undefined ? {} : { turnId }),
      actionId: item.actionId,
      attemptId: item.attemptId,
      ...(spawn ? { childRunId: childRunIdOf(item.actionId) } : {}),
    };
    return this.#reserve(
      this.#attemptAmounts(item.tool.name),
      attribution,
      (open) => {
        this.#attempts.set(item.attemptId, open);
      },
      spawn ? childReservationIdOf(item.attemptId) : undefined,
    );
  }

  /** Whether an attempt holds a reservation. */
  holds(attemptId: string): boolean {
    return this.#attempts.has(attemptId);
  }

  /**
   * An attempt settled: one tool operation charged when it was dispatched; released in full
   * when it never was. A spawn is charged what its child was charged in all (known once the
   * child ended in this process), else everything it held: a child can never spend past it.
   */
  settleAttempt(attemptId: string, dispatched: boolean): YokeEventDraft | undefined {
    const open = this.#attempts.get(attemptId);
    if (open === undefined || this.#ledger === undefined) return undefined;
    this.#attempts.delete(attemptId);
    if (open.attribution.kind !== "subagent") return this.#settle(open, dispatched ? { tool_ops: 1 } : {});
    if (!dispatched) return this.#settle(open, {});
    const child = this.#deps.subagents?.charges.get(attemptId);
    this.#deps.subagents?.charges.delete(attemptId);
    const { concurrency: _gauge, ...held } = open.amounts;
    // The parent charges its own wall time; the child's runs inside it.
    const { wall_time: _inside, ...childCharge } = child ?? {};
    return this.#settle(open, child === undefined ? held : addAmounts(childCharge, { tool_ops: 1, fan_out: 1 }));
  }

  /**
   * Settles the reservations of attempts a resume's recovery moved on (reconciled, failed,
   * replaced by a new attempt): each was executing when its process stopped, so its operation is charged.
   */
  settleSuperseded(state: RunState): YokeEventDraft[] {
    const drafts: YokeEventDraft[] = [];
    for (const [attemptId, open] of [...this.#attempts]) {
      const record = state.actions.find((action) => action.actionId === open.attribution.actionId);
      const live = record !== undefined && record.attemptId === attemptId && (record.status.state === "leased" || record.status.state === "executing");
      if (!live) drafts.push(this.settleAttempt(attemptId, true)!);
    }
    return drafts;
  }

  /** Settles every attempt reservation still open (charged: each was dispatched), before a run ends around them. */
  settleOpenAttempts(): YokeEventDraft[] {
    return [...this.#attempts.keys()].map((attemptId) => this.settleAttempt(attemptId, true)!);
  }

  #reserve(amounts: BudgetAmounts, attribution: ChargeAttribution, onOpen: (open: OpenReservation) => void, id?: string): YokeEventDraft | Exhaustion {
    const reservationId = id ?? newId(this.#deps.ids, "reservation");
    const result = this.#ledger!.reserve({ reservationId, parentId: this.#budgetId!, amounts, attribution });
    if (!result.ok) return exhausted(result);
    onOpen({ reservationId, amounts, attribution });
    return {
      type: "budget.reserved",
      at: this.#deps.clock.now(),
      causationId: attribution.attemptId ?? attribution.turnId ?? null,
      data: { reservationId, parentId: this.#budgetId!, amounts, attribution },
    };
  }

  #settle(open: OpenReservation, actual: BudgetAmounts): YokeEventDraft {
    // The work already happened: what it used past its hold is the one in-flight overshoot, recorded as such.
    const data = this.#ledger!.settle(open.reservationId, actual, { overshoot: true });
    const at = this.#deps.clock.now();
    if ((data.charged.wall_time ?? 0) > 0) this.#wallMark = at;
    return { type: "budget.settled", at, causationId: open.attribution.attemptId ?? open.attribution.turnId ?? null, data };
  }

  #elapsed(): number {
    return Math.max(0, this.#deps.clock.now() - this.#wallMark);
  }

  #usageCharge(open: OpenReservation, usage: Usage, model: { provider: string; model: string }): BudgetAmounts {
    const pricing = this.#deps.budget?.pricing;
    const charge: BudgetAmounts = {
      ...(open.amounts.turns === undefined ? {} : { turns: open.amounts.turns }),
      tokens: usage.inputTokens + usage.outputTokens,
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      ...(usage.cacheReadTokens === undefined ? {} : { cache_read_tokens: usage.cacheReadTokens }),
      ...(usage.cacheWriteTokens === undefined ? {} : { cache_write_tokens: usage.cacheWriteTokens }),
      wall_time: this.#elapsed(),
    };
    if (pricing === undefined) return charge;
    return { ...charge, spend: this.#spendOf(usage, model, open.amounts.spend ?? 0) };
  }

  /** What `usage` costs: at the answering model's price, else the requested model's; never zero for lack of a price (then what was held). */
  #spendOf(usage: Usage, answered: { provider: string; model: string }, held: number): number {
    const pricing = this.#deps.budget!.pricing!;
    for (const model of [answered, { provider: this.#deps.provider.provider, model: this.#deps.provider.modelId }]) {
      try {
        return createPricing(pricing).priceOf(model, usage);
      } catch (error) {
        if (!YokeError.isInstance(error) || error.code !== "PRICING_MISSING") throw error;
      }
    }
    return held;
  }

  /** The most `input` + `output` tokens can cost: every input token at the dearer of the input and cache-write prices. */
  #worstSpend(input: number, output: number): number {
    const pricing = this.#deps.budget!.pricing!;
    const model = { provider: this.#deps.provider.provider, model: this.#deps.provider.modelId };
    const pricer = createPricing(pricing);
    const plain = pricer.priceOf(model, { inputTokens: input, outputTokens: output });
    const written = pricer.priceOf(model, { inputTokens: input, outputTokens: output, cacheWriteTokens: input });
    return Math.max(plain, written);
  }
}

function exhausted(result: Extract<ReturnType<BudgetLedger["reserve"]>, { ok: false }>): Exhaustion {
  return { status: "budget_exhausted", budget: result.dimension as BudgetDimension, limit: result.limit, reservationId: result.reservationId };
}

/** Whether admission refused. */
export function isExhaustion(value: YokeEventDraft | Exhaustion | undefined): value is Exhaustion {
  return value !== undefined && "status" in value;
}
