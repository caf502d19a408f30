import { withParsedArguments, type JsonValue, type YokeEvent } from "@yoke/protocol";
import type { RunStreamDurablePart, StreamedToolCall } from "./stream-parts.js";

/**
 * Turns a run's journaled events, read in order from its first, into durable stream parts.
 * Stateful: an action's outcome names only its action, so the call each action answers (and
 * each call's input) is remembered from the events that introduced them.
 */
export class DurableParts {
  private readonly calls = new Map<string, { toolCallId: string; toolName: string }>();
  private readonly inputs = new Map<string, JsonValue | undefined>();

  of(event: YokeEvent): RunStreamDurablePart[] {
    const { seq } = event;
    switch (event.type) {
      case "run.started":
        return [{ type: "run-started", seq, runId: event.runId, sessionId: event.data.sessionId, task: event.data.task }];
      case "input.added": {
        const { content, source } = event.data;
        const text = content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
        const media = content.filter((part) => part.type !== "text");
        return [{ type: "input", seq, source, text, ...(media.length === 0 ? {} : { media }) }];
      }
      case "model.responded":
        return [this.response(event)];
      case "model.failed": {
        const { turnId, attempt, code, message, retrying } = event.data;
        return [{ type: "model-failed", seq, turnId, attempt, code, message, retrying }];
      }
      case "action.admitted":
      case "action.proposed":
      case "tool.started":
        this.calls.set(event.data.actionId, { toolCallId: event.data.toolCallId, toolName: event.data.toolName });
        return [];
      case "action.approval_requested": {
        const { actionId, approvalId, toolCallId, toolName, policy } = event.data;
        this.calls.set(actionId, { toolCallId, toolName });
        const input = event.data.input ?? this.inputs.get(toolCallId);
        return [{ type: "approval-requested", seq, approvalId, actionId, toolCallId, toolName, input, reason: policy.reason }];
      }
      case "approval.granted":
      case "approval.denied": {
        const call = this.calls.get(event.data.actionId);
        if (call === undefined) return [];
        const { approvalId, actionId, approver } = event.data;
        const approved = event.type === "approval.granted";
        return [
          {
            type: "approval-decided",
            seq,
            approvalId,
            actionId,
            toolCallId: call.toolCallId,
            approved,
            approver,
            ...(approved ? {} : { reason: event.data.reason }),
          },
        ];
      }
      case "tool.rejected":
      case "tool.excess_rejected": {
        const { toolCallId, toolName, result } = event.data;
        return [{ type: "tool-result", seq, toolCallId, toolName, rejected: true, result }];
      }
      case "action.committed":
      case "tool.completed":
        return this.outcome(event.seq, event.data.actionId, event.data.result);
      case "action.failed":
        // A failed attempt that is retried is not an answer: the model is not shown it either.
        return event.data.retrying ? [] : this.outcome(event.seq, event.data.actionId, event.data.result);
      case "run.waiting":
        return [{ type: "run-waiting", seq, kind: event.data.kind, reason: event.data.reason }];
      case "run.completed":
        return [{ type: "run-ended", seq, outcome: event.data.outcome }];
      case "run.failed": {
        const { code, message, retryable } = event.data;
        return [{ type: "run-failed", seq, code, message, retryable }];
      }
      default:
        return [];
    }
  }

  private response(event: Extract<YokeEvent, { type: "model.responded" }>): RunStreamDurablePart {
    const response = event.data.argumentsFromRaw === true ? withParsedArguments(event.data.response) : event.data.response;
    let text = "";
    let reasoning = "";
    const toolCalls: StreamedToolCall[] = [];
    for (const part of response.content) {
      if (part.type === "text") text += part.text;
      else if (part.type === "reasoning") reasoning += part.text;
      else if (part.type === "tool-call") {
        this.inputs.set(part.toolCallId, part.arguments);
        const { toolCallId, toolName, rawArguments } = part;
        toolCalls.push(part.arguments === undefined ? { toolCallId, toolName, rawArguments } : { toolCallId, toolName, rawArguments, input: part.arguments });
      }
    }
    return { type: "model-response", seq: event.seq, turnId: event.data.turnId, text, reasoning, toolCalls, stopReason: response.stopReason };
  }

  private outcome(seq: number, actionId: string, result: Extract<RunStreamDurablePart, { type: "tool-result" }>["result"]): RunStreamDurablePart[] {
    const call = this.calls.get(actionId);
    if (call === undefined) return [];
    return [{ type: "tool-result", seq, toolCallId: call.toolCallId, toolName: call.toolName, actionId, rejected: false, result }];
  }
}
