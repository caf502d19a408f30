import { createHash } from "node:crypto";
import { canonicalJson, withParsedArguments, type JsonValue, type ToolResultEnvelope, type YokeEvent } from "@yoke/protocol";

/** SHA-256 of the canonical JSON of a call's arguments: how a shadow and a report name "the same call". */
export function argumentsDigest(value: unknown): string {
  return createHash("sha256")
    .update(canonicalJson(value ?? null))
    .digest("hex");
}

/** One settled outcome of the primary's run: what its tool returned (or how it failed) for one action. */
export interface RecordedOutcome {
  readonly toolName: string;
  readonly argumentsDigest: string;
  readonly actionId: string;
  readonly result: ToolResultEnvelope;
  readonly receipt?: JsonValue;
}

/**
 * The primary run's settled tool outcomes, by tool name and arguments digest, in the order
 * they settled: a shadowed candidate's suppressed call with the same tool and arguments takes
 * the first one not yet taken, so two identical calls get the primary's two answers in order.
 */
export class RecordedOutcomes {
  readonly #queues = new Map<string, RecordedOutcome[]>();

  static of(events: Iterable<YokeEvent>): RecordedOutcomes {
    const outcomes = new RecordedOutcomes();
    const inputs = new Map<string, { toolName: string; digest: string }>();
    const callArguments = new Map<string, unknown>();
    for (const event of events) {
      switch (event.type) {
        case "model.responded":
          callArguments.clear();
          for (const part of withParsedArguments(event.data.response).content) {
            if (part.type === "tool-call") callArguments.set(part.toolCallId, part.arguments);
          }
          break;
        case "action.admitted":
        case "action.proposed":
        case "action.approval_requested": {
          const input = event.data.inputFromCall === true ? callArguments.get(event.data.toolCallId) : event.data.input;
          inputs.set(event.data.actionId, { toolName: event.data.toolName, digest: argumentsDigest(input) });
          break;
        }
        case "action.committed":
          outcomes.#add(inputs.get(event.data.actionId), event.data.actionId, event.data.result, event.data.receipt);
          break;
        case "action.failed":
          if (!event.data.retrying) outcomes.#add(inputs.get(event.data.actionId), event.data.actionId, event.data.result, undefined);
          break;
        case "action.reconciled":
          if (event.data.result !== undefined) outcomes.#add(inputs.get(event.data.actionId), event.data.actionId, event.data.result, event.data.receipt);
          break;
        default:
          break;
      }
    }
    return outcomes;
  }

  /** The primary's next unused outcome of `toolName` with these arguments, if it has one. */
  take(toolName: string, digest: string): RecordedOutcome | undefined {
    return this.#queues.get(key(toolName, digest))?.shift();
  }

  #add(action: { toolName: string; digest: string } | undefined, actionId: string, result: ToolResultEnvelope, receipt: JsonValue | undefined): void {
    if (action === undefined) return;
    const queueKey = key(action.toolName, action.digest);
    const queue = this.#queues.get(queueKey) ?? [];
    queue.push({ toolName: action.toolName, argumentsDigest: action.digest, actionId, result, ...(receipt === undefined ? {} : { receipt }) });
    this.#queues.set(queueKey, queue);
  }
}

function key(toolName: string, digest: string): string {
  return `${toolName}\u0000${digest}`;
}
