// The turns of the run model: each with its model calls (compiled manifest, request, failures,
// response), the actions it opened, its rejected calls, the inputs added in it and its usage.
import { partText } from "./part-text.js";
import type { Manifest } from "@yoke/context-compiler";
import { type JournalEvent, type Usage, YokeError, type YokeEvent } from "@yoke/protocol";
import { decisionFactsOf } from "./decision-facts.js";
import { nextManifest, summarizeManifest } from "./inspect-manifest.js";
import type { InputView, InspectProblem, ModelCallView, RejectionView, ResponsePartView, TurnView } from "./run-view.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type TurnDraft = Mutable<Omit<TurnView, "modelCalls" | "actionIds" | "rejections" | "inputs">> & {
  modelCalls: Mutable<ModelCallView>[];
  actionIds: string[];
  rejections: RejectionView[];
  inputs: InputView[];
};

const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };

export class TurnFolder {
  readonly #turns: TurnDraft[] = [];
  /** Each turn's model calls, for the budget folder to hang a call's reservation and cost on. */
  readonly callsByTurnId = new Map<string, Mutable<ModelCallView>[]>();
  #manifest: Manifest | undefined;
  #pendingCompile: { seq: number; summary: ModelCallView["manifest"] } | undefined;
  /** The run's usage: the sum of its responses'. */
  usage: Usage = ZERO_USAGE;

  constructor(private readonly problems: InspectProblem[]) {}

  /** The index of the turn the next event falls in (0 before the first `turn.started`). */
  get currentIndex(): number {
    return this.#turns.at(-1)?.index ?? 0;
  }

  /** The last turn the run started (index above 0), if any. */
  get lastStarted(): TurnView | undefined {
    return [...this.#turns].reverse().find((turn) => turn.index > 0);
  }

  /**
   * Places an event in its turn — a new one on `turn.started`, else the last (a turn 0 before the
   * first) — and records what it adds there. Returns the turn's index. `written`: the event's
   * data as stored, where a refusal's decision facts are read (default: the parsed data).
   */
  apply(event: YokeEvent, openedActionId: string | undefined, written: unknown = event.data): number {
    const turn = this.#turnOf(event);
    turn.lastSeq = event.seq;
    if (openedActionId !== undefined) turn.actionIds.push(openedActionId);
    switch (event.type) {
      case "context.compiled":
        try {
          const next = nextManifest(this.#manifest, event);
          this.#manifest = next.manifest;
          this.#pendingCompile = { seq: event.seq, summary: summarizeManifest(next.manifest, next.delta, event) };
        } catch (error) {
          this.problems.push({ seq: event.seq, message: YokeError.isInstance(error) ? error.message : String(error) });
          this.#pendingCompile = { seq: event.seq, summary: undefined };
        }
        break;
      case "model.requested": {
        const compiled = this.#pendingCompile;
        this.#pendingCompile = undefined;
        turn.modelCalls.push({
          compiledSeq: compiled?.seq,
          requestedSeq: event.seq,
          requestInTurn: turn.modelCalls.length,
          requestHash: event.data.requestHash,
          messageCount: event.data.messageCount,
          manifest: compiled?.summary,
          failures: [],
          response: undefined,
          reservationId: undefined,
          cost: undefined,
        });
        break;
      }
      case "model.failed":
        (turn.modelCalls.at(-1)?.failures as Mutable<ModelCallView["failures"][number]>[] | undefined)?.push({
          seq: event.seq,
          attempt: event.data.attempt,
          code: event.data.code,
          message: event.data.message,
          retrying: event.data.retrying,
        });
        break;
      case "model.responded": {
        const { response } = event.data;
        const call = turn.modelCalls.at(-1);
        if (call) {
          call.response = {
            seq: event.seq,
            at: event.at,
            provider: response.provider,
            model: response.model,
            stopReason: response.stopReason,
            parts: partsOf(event),
            usage: response.usage,
            latencyMs: event.data.latencyMs,
            requestId: response.requestId,
          };
        } else {
          this.problems.push({ seq: event.seq, message: "model.responded without a model.requested in its turn" });
        }
        turn.usage = addUsage(turn.usage, response.usage);
        this.usage = addUsage(this.usage, response.usage);
        break;
      }
      case "tool.rejected":
        turn.rejections.push({
          seq: event.seq,
          toolCallId: event.data.toolCallId,
          toolName: event.data.toolName,
          code: event.data.code,
          message: event.data.result.error?.message ?? "",
          decisionFacts: decisionFactsOf(written),
        });
        break;
      case "input.added":
        turn.inputs.push({ seq: event.seq, source: event.data.source, text: event.data.content.map(partText).join("\n") });
        break;
    }
    return turn.index;
  }

  /** The turns, each with the cost of its model calls (once the budget folder has priced them). */
  views(currency: string | undefined): TurnView[] {
    return this.#turns.map((turn) => {
      const costs = turn.modelCalls.map((call) => call.cost).filter((cost): cost is number => cost !== undefined);
      return { ...turn, cost: costs.length === 0 ? undefined : costs.reduce((a, b) => a + b, 0), currency };
    });
  }

  #turnOf(event: YokeEvent): TurnDraft {
    if (event.type === "turn.started") {
      const turn = newTurn(
        event.data.index,
        event.data.turnId,
        event,
        event.data.offered?.tools.map((tool) => tool.name),
      );
      this.#turns.push(turn);
      this.callsByTurnId.set(event.data.turnId, turn.modelCalls);
      return turn;
    }
    const last = this.#turns.at(-1);
    if (last) return last;
    const first = newTurn(0, undefined, event, undefined);
    this.#turns.push(first);
    return first;
  }
}

function newTurn(index: number, turnId: string | undefined, event: JournalEvent, offered: readonly string[] | undefined): TurnDraft {
  return {
    index,
    turnId,
    seq: event.seq,
    at: event.at,
    offered,
    modelCalls: [],
    actionIds: [],
    rejections: [],
    inputs: [],
    usage: ZERO_USAGE,
    cost: undefined,
    currency: undefined,
    firstSeq: event.seq,
    lastSeq: event.seq,
  };
}

function addUsage(total: Usage, usage: Usage): Usage {
  const sum = (a: number | undefined, b: number | undefined) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
  const cacheRead = sum(total.cacheReadTokens, usage.cacheReadTokens);
  const cacheWrite = sum(total.cacheWriteTokens, usage.cacheWriteTokens);
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    ...(cacheRead === undefined ? {} : { cacheReadTokens: cacheRead }),
    ...(cacheWrite === undefined ? {} : { cacheWriteTokens: cacheWrite }),
  };
}

function partsOf(event: YokeEvent & { type: "model.responded" }): ResponsePartView[] {
  return event.data.response.content.map((part): ResponsePartView => {
    switch (part.type) {
      case "text":
        return { type: "text", text: part.text };
      case "refusal":
        return { type: "refusal", text: part.text };
      case "reasoning":
        return { type: "reasoning" };
      case "tool-call":
        return { type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, arguments: part.rawArguments, truncated: false };
      case "tool-call-truncated":
        return { type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, arguments: part.rawArguments, truncated: true };
      case "tool-call-withheld":
        return { type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, arguments: part.rawArguments, truncated: false, withheld: true };
      case "server-tool-call":
        return { type: "server-tool", text: `${part.provider} ran ${part.toolName}` };
      default:
        return { type: "server-tool", text: part.resultType };
    }
  });
}
