import {
  compactReservation,
  compactSettlement,
  newId,
  YokeError,
  type BudgetAmounts,
  type Clock,
  type IdSource,
  type ProviderAdapterV1,
  type BudgetReservation,
  type BudgetSettlement,
  type CarriedReservation,
  type CarriedSettlement,
  type ChargeAttribution,
  type ModelPrice,
  type ModelResponse,
  type ReservationCarrier,
  type RunState,
  type Usage,
  type YokeEvent,
  type YokeEventDraft,
} from "@yoke/protocol";
import { addAmounts, createBudgetLedger, createPricing, spendOf, type BudgetLedger } from "@yoke/budget";
import { budgetEntriesOf } from "@yoke/protocol";
import type { DispatchItem } from "@yoke/scheduler";
import { childReservationIdOf, childRunIdOf, SPAWN_SUBAGENT } from "../subagents/subagent-options.js";
import type { ResolvedBudget } from "./budget-options.js";
import { CHECK_ID, carries, type DispatchedTool, type Exhaustion, evenShare, exhausted, isExhaustion, sumOf } from "./budget-steps.js";

export { isExhaustion, type Exhaustion, type DispatchedTool } from "./budget-steps.js";

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

/**
 * The budget of one run as this process holds it: the ledger (rebuilt on resume from the
 * journal's reservations and settlements), the open model-call, verifier and tool-attempt
 * reservations and the wall-time mark (the clock time up to which wall time is charged).
 * Admission methods return reservations and settlements; the caller journals each on the
 * event that starts or ends the work (`carry`), in the commit it already makes: a budget
 * adds no event to a turn.
 */
export class RunBudget {
  #ledger: BudgetLedger | undefined;
  #budgetId: string | undefined;
  #wallMark = 0;
  #modelCall: OpenReservation | undefined;
  #verifier: OpenReservation | undefined;
  #lastPrice: { readonly provider: string; readonly model: string; readonly price: ModelPrice | undefined } | undefined;
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

  /** Folds a journaled event (a resume rebuilding the budget): `budget.*`, and the reservations and settlements carried by the work's own events. */
  observe(event: YokeEvent): void {
    if (event.type === "budget.opened") {
      this.#opened(event.data.budgetId, event.data.limits, event.at);
      return;
    }
    const entries = budgetEntriesOf(event);
    if (entries.length === 0) return;
    this.#ledger?.apply(event);
    for (const entry of entries) {
      if (entry.kind === "reserved") {
        const { reservationId, amounts, attribution } = entry.data;
        const open = { reservationId, amounts, attribution };
        if (attribution.kind === "model_call" && attribution.discarded !== true) this.#modelCall = open;
        if (attribution.kind === "verifier") this.#verifier = open;
        const { kind, attemptId } = attribution;
        if ((kind === "tool_attempt" || kind === "subagent") && attemptId !== undefined) this.#attempts.set(attemptId, open);
        continue;
      }
      const { reservationId, charged } = entry.data;
      if (this.#modelCall?.reservationId === reservationId) this.#modelCall = undefined;
      if (this.#verifier?.reservationId === reservationId) this.#verifier = undefined;
      for (const [attemptId, open] of this.#attempts) if (open.reservationId === reservationId) this.#attempts.delete(attemptId);
      if ((charged.wall_time ?? 0) > 0) this.#wallMark = event.at;
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
   * what is left). Journal it as `model.requested`'s `reserved`. An exhaustion names the
   * dimension and the reservation that bound.
   */
  reserveModelCall(turnId: string, request: { inputTokens: number; outputReserve: number }, startsTurn: boolean): BudgetReservation | Exhaustion | undefined {
    const ledger = this.#ledger;
    const budget = this.#deps.budget;
    if (ledger === undefined || budget === undefined) return undefined;
    const output = budget.outputReserve ?? request.outputReserve;
    const input = request.inputTokens;
    const elapsed = this.#elapsed();
    const left = ledger.remainingOf(this.#budgetId!, "wall_time");
    const deadline = elapsed + this.#deps.modelCallTimeoutMs * (this.#deps.modelRetries + 1);
    // Keys in code-unit order, as canonical JSON writes them (journaled without a sorted copy).
    const amounts: BudgetAmounts = {};
    if (budget.limits.cache_read_tokens !== undefined) amounts.cache_read_tokens = input;
    if (budget.limits.cache_write_tokens !== undefined) amounts.cache_write_tokens = input;
    amounts.input_tokens = input;
    amounts.output_tokens = output;
    if (budget.pricing !== undefined) amounts.spend = this.#worstSpend(input, output);
    amounts.tokens = input + output;
    if (startsTurn) amounts.turns = 1;
    amounts.wall_time = left === undefined ? deadline : Math.max(elapsed + 1, Math.min(left, deadline));
    const attribution: ChargeAttribution = { kind: "model_call", runId: this.#runId, turnId };
    return this.#reserve(amounts, attribution, (open) => {
      this.#modelCall = open;
    });
  }

  /** The open model call was answered: its settlement (journal it as `model.responded`'s `settled`) to the response's usage, overshoot when it used more than held. */
  settleModelCall(response: ModelResponse): BudgetSettlement | undefined {
    const open = this.#modelCall;
    if (open === undefined || this.#ledger === undefined) return undefined;
    this.#modelCall = undefined;
    return this.#settle(open, this.#usageCharge(open, response.usage, { provider: response.provider, model: response.model }));
  }

  /**
   * The open model call was cut (a cancellation aborted it) and no answer came: its usage is
   * unknown, and the budget never counts unknown as zero (a run cut and resumed again and
   * again would otherwise spend without bound): it is charged everything it held (the
   * compiled request's tokens and the output reserve, their price, its turn) and the wall
   * time it took. Journal it as `budget.settled`.
   */
  settleCutModelCall(): BudgetSettlement | undefined {
    const open = this.#modelCall;
    if (open === undefined || this.#ledger === undefined) return undefined;
    this.#modelCall = undefined;
    const { concurrency: _gauge, wall_time: _held, ...held } = open.amounts;
    return this.#settle(open, { ...held, wall_time: this.#elapsed() });
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
    return [this.reservedDraft(reserved), this.settledDraft(this.#settle(discarded, { wall_time: elapsed }), attribution)];
  }

  /**
   * Whether the dispatches of `tools` fit (tool operations, concurrency, wall time); checked
   * before any call of a response is admitted, so a batch runs whole or not at all.
   */
  admitDispatches(tools: readonly DispatchedTool[]): Exhaustion | undefined {
    const ledger = this.#ledger;
    if (ledger === undefined || tools.length === 0) return undefined;
    const result = ledger.check({
      reservationId: CHECK_ID,
      parentId: this.#budgetId!,
      amounts: sumOf(this.#dispatchAmounts(tools)),
      attribution: { kind: "tool_attempt", runId: this.#runId },
    });
    return result.ok ? undefined : exhausted(result);
  }

  /** Whether this run's budget bounds wall time: then every dispatch holds its share of it. */
  #wallBounded(): boolean {
    return this.#ledger?.limits.wall_time !== undefined;
  }

  /**
   * What each dispatch of `tools` holds: a tool operation and a unit of concurrency (a spawn
   * also a child and its whole budget); when wall time is bounded, an even share of the
   * batch's worst case (the time since the last charge plus every tool's timeout, as if they
   * ran one after the other, at most what is left).
   */
  #dispatchAmounts(tools: readonly DispatchedTool[]): BudgetAmounts[] {
    if (!this.#wallBounded()) return tools.map((tool) => this.#attemptAmounts(tool.name));
    const elapsed = this.#elapsed();
    const worst = elapsed + tools.reduce((sum, tool) => sum + Math.max(1, tool.timeoutMs), 0);
    const left = this.#ledger!.remainingOf(this.#budgetId!, "wall_time") ?? worst;
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
    return addAmounts(this.#deps.subagents!.budget, { tool_ops: 1, concurrency: 1, fan_out: 1 });
  }

  /** Whether a dispatch of `toolName` starts a child run (this harness spawns subagents). */
  #spawns(toolName: string): boolean {
    return this.#deps.subagents !== undefined && toolName === SPAWN_SUBAGENT;
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
    const ledger = this.#ledger;
    const fresh = items.filter((item) => !this.#attempts.has(item.attemptId));
    if (ledger === undefined || fresh.length === 0) return [];
    const amounts = this.#dispatchAmounts(fresh.map((item) => ({ name: item.tool.name, timeoutMs: item.tool.timeoutMs })));
    // Checked whole first (under an id never journaled): a batch is reserved whole or not at all.
    const fits = ledger.check({
      reservationId: CHECK_ID,
      parentId: this.#budgetId!,
      amounts: sumOf(amounts),
      attribution: { kind: "tool_attempt", runId: this.#runId },
    });
    if (!fits.ok) return exhausted(fits);
    return fresh.map((item, index) => {
      const spawn = this.#deps.subagents !== undefined && item.tool.name === SPAWN_SUBAGENT;
      // Keys in code-unit order, as canonical JSON writes them.
      const attribution: ChargeAttribution = {
        actionId: item.actionId,
        attemptId: item.attemptId,
        ...(spawn ? { childRunId: childRunIdOf(item.actionId) } : {}),
        kind: spawn ? "subagent" : "tool_attempt",
        runId: this.#runId,
        ...(turnId === undefined ? {} : { turnId }),
      };
      const reserved = this.#reserve(
        amounts[index]!,
        attribution,
        (open) => {
          this.#attempts.set(item.attemptId, open);
        },
        spawn ? childReservationIdOf(item.attemptId) : undefined,
      );
      if (isExhaustion(reserved)) throw new YokeError("INTERNAL", `a dispatch checked as fitting the budget did not fit (${reserved.budget})`);
      return reserved;
    });
  }

  /** Whether an attempt holds a reservation. */
  holds(attemptId: string): boolean {
    return this.#attempts.has(attemptId);
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
    if (this.#ledger === undefined) return settled;
    const held = attempts.filter((attempt) => this.#attempts.has(attempt.attemptId));
    const dispatched = held.filter((attempt) => attempt.dispatched);
    const wall = dispatched.length === 0 ? 0 : this.#elapsed();
    let share = 0;
    for (const attempt of held) {
      const wallShare = attempt.dispatched ? evenShare(wall, dispatched.length, share++) : 0;
      const { attribution } = this.#attempts.get(attempt.attemptId)!;
      settled.set(attempt.attemptId, { entry: { kind: "settled", data: this.#settleAttempt(attempt.attemptId, attempt.dispatched, wallShare) }, attribution });
    }
    return settled;
  }

  #settleAttempt(attemptId: string, dispatched: boolean, wall: number): BudgetSettlement {
    const open = this.#attempts.get(attemptId)!;
    this.#attempts.delete(attemptId);
    if (!dispatched) return this.#settle(open, {});
    const wallCharge = wall === 0 ? {} : { wall_time: wall };
    if (open.attribution.kind !== "subagent") return this.#settle(open, wall === 0 ? { tool_ops: 1 } : { tool_ops: 1, wall_time: wall });
    const child = this.#deps.subagents?.charges.get(attemptId);
    this.#deps.subagents?.charges.delete(attemptId);
    const { concurrency: _gauge, wall_time: heldWall, ...held } = open.amounts;
    // The parent charges its own wall time (the child's runs inside it).
    const { wall_time: _inside, ...childCharge } = child ?? {};
    if (child === undefined) return this.#settle(open, { ...held, ...(heldWall === undefined ? wallCharge : { wall_time: Math.max(heldWall, wall) }) });
    return this.#settle(open, addAmounts(childCharge, { tool_ops: 1, fan_out: 1, ...wallCharge }));
  }

  /**
   * Settles the reservations of attempts a resume's recovery moved on (reconciled, failed,
   * replaced by a new attempt): each was executing when its process stopped, so its operation
   * is charged. Journaled as `budget.settled` (nothing else ends that work).
   */
  settleSuperseded(state: RunState): YokeEventDraft[] {
    const stale: { attemptId: string; dispatched: boolean }[] = [];
    for (const [attemptId, open] of this.#attempts) {
      const record = state.actions.find((action) => action.actionId === open.attribution.actionId);
      const live = record !== undefined && record.attemptId === attemptId && (record.status.state === "leased" || record.status.state === "executing");
      if (!live) stale.push({ attemptId, dispatched: true });
    }
    return this.#settledDrafts(stale);
  }

  /** Settles every attempt reservation still open (charged: each was dispatched), before a run ends around them: `budget.settled` each. */
  settleOpenAttempts(): YokeEventDraft[] {
    return this.#settledDrafts([...this.#attempts.keys()].map((attemptId) => ({ attemptId, dispatched: true })));
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
    const ledger = this.#ledger;
    if (ledger === undefined) return undefined;
    const elapsed = this.#elapsed();
    const amounts: BudgetAmounts = { ...declared, wall_time: elapsed + (declared?.wall_time ?? this.#undeclaredVerifierWall(elapsed)) };
    const attribution: ChargeAttribution = { kind: "verifier", runId: this.#runId, turnId, verifierRunId };
    return this.#reserve(amounts, attribution, (open) => {
      this.#verifier = open;
    });
  }

  /**
   * The wall time held for a verifier that declares none (an in-process check, `checkCompletion`):
   * its duration is unknown, so as long as a model call may take (`modelCallTimeoutMs`), at most
   * what is left, at least one unit: it is not refused for lack of room a few milliseconds would
   * fit in, and it overshoots only when it runs longer than that.
   */
  #undeclaredVerifierWall(elapsed: number): number {
    const left = this.#ledger!.remainingOf(this.#budgetId!, "wall_time");
    const bound = left === undefined ? this.#deps.modelCallTimeoutMs : Math.min(left - elapsed, this.#deps.modelCallTimeoutMs);
    return Math.max(1, bound);
  }

  /** The verifier run finished: charged its wall time (since the last charge, on the injected clock); journal it as `verifier.finished`'s `settled`. */
  settleVerifier(): BudgetSettlement | undefined {
    const open = this.#verifier;
    if (open === undefined || this.#ledger === undefined) return undefined;
    this.#verifier = undefined;
    return this.#settle(open, { wall_time: this.#elapsed() });
  }

  /** The verifier reservation still open (a verifier a crash cut short), settled as `budget.settled`: it ran, so its time is charged. */
  settleOpenVerifier(): YokeEventDraft | undefined {
    const open = this.#verifier;
    const settled = this.settleVerifier();
    return settled === undefined ? undefined : this.settledDraft(settled, open?.attribution);
  }

  /**
   * Puts a budget step on the draft of `drafts` that starts (`reserved`) or ends (`settled`)
   * the work it is for, or, when none of them does (a spawn's reservation, which the child's
   * `budget.opened.parent` names), appends it as `budget.reserved` / `budget.settled`. Call it
   * before the drafts are previewed: the draft is replaced.
   */
  carry(drafts: YokeEventDraft[], entry: BudgetStep, attribution?: ChargeAttribution): void {
    const work = entry.kind === "reserved" ? entry.data.attribution : attribution;
    const index = work === undefined || work.kind === "subagent" ? -1 : drafts.findIndex((draft) => carries(draft, entry.kind, work));
    if (index === -1) {
      drafts.push(entry.kind === "reserved" ? this.reservedDraft(entry.data) : this.settledDraft(entry.data, work));
      return;
    }
    const draft = drafts[index]!;
    const carried =
      entry.kind === "reserved"
        ? this.carriedReservation(entry.data, draft.type as ReservationCarrier, draft.data as CarrierIds)
        : compactSettlement(entry.data);
    drafts[index] = { ...draft, data: { ...draft.data, [entry.kind]: carried } } as YokeEventDraft;
  }

  /**
   * `reserved` as the event of `type` that starts its work (with `carrier`'s ids) journals it:
   * the attribution without the ids the event holds, none when only the kind `type` implies is
   * left (`compactReservation`; `budgetEntriesOf` gives them back). Fewer bytes a step: a
   * reservation rides on every model call and dispatch.
   */
  carriedReservation(reserved: BudgetReservation, type: ReservationCarrier, carrier: CarrierIds): CarriedReservation {
    return compactReservation(reserved, { type, runId: this.#runId, data: carrier });
  }

  /** `settled` as the event that ends its work journals it: without `released` (held less charged; the ledger works it out). */
  carriedSettlement(settled: BudgetSettlement): CarriedSettlement {
    return compactSettlement(settled);
  }

  /** A reservation as its own `budget.reserved` event. */
  reservedDraft(data: BudgetReservation): YokeEventDraft {
    return { type: "budget.reserved", at: this.#deps.clock.now(), causationId: data.attribution.attemptId ?? data.attribution.turnId ?? null, data };
  }

  /** A settlement as its own `budget.settled` event. */
  settledDraft(data: BudgetSettlement, attribution?: ChargeAttribution): YokeEventDraft {
    return { type: "budget.settled", at: this.#deps.clock.now(), causationId: attribution?.attemptId ?? attribution?.turnId ?? null, data };
  }

  #reserve(amounts: BudgetAmounts, attribution: ChargeAttribution, onOpen: (open: OpenReservation) => void, id?: string): BudgetReservation | Exhaustion {
    const reservationId = id ?? newId(this.#deps.ids, "reservation");
    const parentId = this.#budgetId!;
    const result = this.#ledger!.reserve({ reservationId, parentId, amounts, attribution });
    if (!result.ok) return exhausted(result);
    onOpen({ reservationId, amounts, attribution });
    // Keys in code-unit order, as canonical JSON writes them.
    return { amounts, attribution, parentId, reservationId };
  }

  #settle(open: OpenReservation, actual: BudgetAmounts): BudgetSettlement {
    // The work already happened: what it used past its hold is the one in-flight overshoot, recorded as such.
    const data = this.#ledger!.settle(open.reservationId, actual, { overshoot: true });
    if ((data.charged.wall_time ?? 0) > 0) this.#wallMark = this.#deps.clock.now();
    return data;
  }

  #elapsed(): number {
    return Math.max(0, this.#deps.clock.now() - this.#wallMark);
  }

  #usageCharge(open: OpenReservation, usage: Usage, model: { provider: string; model: string }): BudgetAmounts {
    // Keys in code-unit order, as canonical JSON writes them.
    const charge: BudgetAmounts = {};
    if (usage.cacheReadTokens !== undefined) charge.cache_read_tokens = usage.cacheReadTokens;
    if (usage.cacheWriteTokens !== undefined) charge.cache_write_tokens = usage.cacheWriteTokens;
    charge.input_tokens = usage.inputTokens;
    charge.output_tokens = usage.outputTokens;
    if (this.#deps.budget?.pricing !== undefined) charge.spend = this.#spendOf(usage, model, open.amounts.spend ?? 0);
    charge.tokens = usage.inputTokens + usage.outputTokens;
    if (open.amounts.turns !== undefined) charge.turns = open.amounts.turns;
    charge.wall_time = this.#elapsed();
    return charge;
  }

  /** What `usage` costs: at the answering model's price, else the requested model's; never zero for lack of a price (then what was held). */
  #spendOf(usage: Usage, answered: { provider: string; model: string }, held: number): number {
    const price = this.#priceOf(answered) ?? this.#priceOf({ provider: this.#deps.provider.provider, model: this.#deps.provider.modelId });
    return price === undefined ? held : spendOf(price, usage);
  }

  /** The price of `model` in the budget's table (undefined when it has none); the last model looked up is remembered (a run calls one model, turn after turn). */
  #priceOf(model: { provider: string; model: string }): ModelPrice | undefined {
    const last = this.#lastPrice;
    if (last !== undefined && last.provider === model.provider && last.model === model.model) return last.price;
    const price = createPricing(this.#deps.budget!.pricing!).find(model);
    this.#lastPrice = { provider: model.provider, model: model.model, price };
    return price;
  }

  /** The most `input` + `output` tokens can cost: every input token at the dearer of the input and cache-write prices. */
  #worstSpend(input: number, output: number): number {
    const model = { provider: this.#deps.provider.provider, model: this.#deps.provider.modelId };
    const price = this.#priceOf(model);
    // Checked at start (PRICING_MISSING): a run's own model is always priced.
    if (price === undefined) return createPricing(this.#deps.budget!.pricing!).priceOf(model, { inputTokens: input, outputTokens: output });
    const plain = spendOf(price, { inputTokens: input, outputTokens: output });
    const written = spendOf(price, { inputTokens: input, outputTokens: output, cacheWriteTokens: input });
    return Math.max(plain, written);
  }
}

/** A budget step as this process makes it, whole (journaled in the carried form on its work's event). */
export type BudgetStep = { readonly kind: "reserved"; readonly data: BudgetReservation } | { readonly kind: "settled"; readonly data: BudgetSettlement };

/** The ids an event that carries a budget step may hold for its attribution. */
type CarrierIds = { readonly turnId?: string; readonly actionId?: string; readonly attemptId?: string; readonly verifierRunId?: string };

/** A settlement to journal, with the attribution of the work it ends (`RunBudget.carry` finds its event by it). */
export interface SettledWork {
  readonly entry: Extract<BudgetStep, { kind: "settled" }>;
  readonly attribution: ChargeAttribution;
}
