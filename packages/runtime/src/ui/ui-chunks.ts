import type { RunResult, WaitingRunResult } from "../run-result.js";
import type { RunStreamDurablePart, RunStreamPart } from "../stream/stream-parts.js";
import type { UIMessageChunk } from "./ui-message-chunks.js";

type Response = Extract<RunStreamDurablePart, { type: "model-response" }>;

/** What the stream has written in the step (one model call) open now. */
interface Step {
  readonly turnId: string;
  text: string;
  reasoning: string;
  /** Argument text written per call started in this step. */
  readonly calls: Map<string, string>;
  /** The text or reasoning part open now, if any. */
  open: { readonly kind: "text" | "reasoning"; readonly id: string } | undefined;
}

/**
 * Turns a run's stream parts into UI message stream chunks: one assistant message per run
 * (its id the run's, unless told otherwise), one step per model call. Deltas are written as
 * they come; each journaled response then completes what they wrote (the rest of a text that
 * lost deltas to a full buffer, or the whole of it in a replay), and when what was streamed is
 * not a prefix of the response (an attempt that failed and was retried) the step is reset and
 * written again from the response. Tool results, approval requests and decisions become the
 * tool part's states; the run's end becomes `finish` with `{ runId, outcome | waiting }` as
 * message metadata.
 */
export class UIChunks {
  private step: Step | undefined;
  private ids = 0;

  constructor(private readonly runId: string) {}

  start(messageId: string): UIMessageChunk[] {
    return [{ type: "start", messageId, messageMetadata: { runId: this.runId } }];
  }

  of(part: RunStreamPart): UIMessageChunk[] {
    switch (part.type) {
      case "text-delta":
      case "reasoning-delta":
        return this.delta(part.turnId, part.type === "text-delta" ? "text" : "reasoning", part.text);
      case "tool-call-start": {
        const out = this.enter(part.turnId);
        out.push(...this.closePart());
        this.step!.calls.set(part.toolCallId, "");
        out.push({ type: "tool-input-start", toolCallId: part.toolCallId, toolName: part.toolName });
        return out;
      }
      case "tool-call-delta": {
        const calls = this.step?.turnId === part.turnId ? this.step.calls : undefined;
        const written = calls?.get(part.toolCallId);
        if (calls === undefined || written === undefined) return [];
        calls.set(part.toolCallId, written + part.argumentsDelta);
        return [{ type: "tool-input-delta", toolCallId: part.toolCallId, inputTextDelta: part.argumentsDelta }];
      }
      case "model-failed":
        if (!part.retrying || this.step?.turnId !== part.turnId) return [];
        this.step = newStep(part.turnId);
        return [{ type: "reset-step" }];
      case "model-response":
        return this.response(part);
      case "tool-result":
        return [toolOutput(part)];
      case "approval-requested":
        return [
          {
            type: "tool-approval-request",
            approvalId: part.approvalId,
            toolCallId: part.toolCallId,
            ...(part.reason === undefined ? {} : { reason: part.reason }),
          },
        ];
      case "approval-decided":
        return [
          {
            type: "tool-approval-response",
            approvalId: part.approvalId,
            approved: part.approved,
            ...(part.reason === undefined ? {} : { reason: part.reason }),
          },
        ];
      case "run-waiting":
        return [{ type: "data-yoke-waiting", data: { kind: part.kind, reason: part.reason } }];
      case "run-failed":
        return [{ type: "error", errorText: `${part.code}: ${part.message}` }];
      case "result":
        return [...this.closeStep(), finish(this.runId, part.result)];
      case "error":
        return [
          ...this.closeStep(),
          { type: "error", errorText: errorText(part.error) },
          { type: "finish", finishReason: "error", messageMetadata: { runId: this.runId } },
        ];
      default:
        // run-started, input (the user's side), run-ended (its outcome rides on `finish`), dropped (the response completes the text).
        return [];
    }
  }

  private delta(turnId: string, kind: "text" | "reasoning", text: string): UIMessageChunk[] {
    const out = this.enter(turnId);
    const step = this.step!;
    if (step.open?.kind !== kind) {
      out.push(...this.closePart());
      step.open = { kind, id: `${turnId}-${kind}-${this.ids++}` };
      out.push({ type: kind === "text" ? "text-start" : "reasoning-start", id: step.open.id });
    }
    if (kind === "text") step.text += text;
    else step.reasoning += text;
    out.push({ type: kind === "text" ? "text-delta" : "reasoning-delta", id: step.open.id, delta: text });
    return out;
  }

  private response(response: Response): UIMessageChunk[] {
    const out = this.enter(response.turnId);
    let step = this.step!;
    const prefix = (written: string, whole: string) => whole.startsWith(written);
    const consistent =
      prefix(step.reasoning, response.reasoning) &&
      prefix(step.text, response.text) &&
      [...step.calls].every(([id, written]) => response.toolCalls.some((call) => call.toolCallId === id && prefix(written, call.rawArguments)));
    if (!consistent) {
      out.push({ type: "reset-step" });
      this.step = step = newStep(response.turnId);
    }
    if (response.reasoning.length > step.reasoning.length)
      out.push(...this.delta(response.turnId, "reasoning", response.reasoning.slice(step.reasoning.length)));
    if (response.text.length > step.text.length) out.push(...this.delta(response.turnId, "text", response.text.slice(step.text.length)));
    out.push(...this.closePart());
    for (const call of response.toolCalls) {
      const written = step.calls.get(call.toolCallId);
      if (written === undefined) out.push({ type: "tool-input-start", toolCallId: call.toolCallId, toolName: call.toolName });
      const rest = call.rawArguments.slice((written ?? "").length);
      if (rest !== "") out.push({ type: "tool-input-delta", toolCallId: call.toolCallId, inputTextDelta: rest });
      step.calls.set(call.toolCallId, call.rawArguments);
      out.push(
        call.input === undefined
          ? {
              type: "tool-input-error",
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              input: call.rawArguments,
              errorText: "the arguments are not valid JSON",
            }
          : { type: "tool-input-available", toolCallId: call.toolCallId, toolName: call.toolName, input: call.input },
      );
    }
    // A step with calls stays open for their results; one without ends here.
    if (response.toolCalls.length === 0) out.push(...this.closeStep());
    return out;
  }

  /** Opens the step of `turnId`, ending the one open for another turn. */
  private enter(turnId: string): UIMessageChunk[] {
    if (this.step?.turnId === turnId) return [];
    const out = this.closeStep();
    this.step = newStep(turnId);
    out.push({ type: "start-step" });
    return out;
  }

  private closePart(): UIMessageChunk[] {
    const open = this.step?.open;
    if (open === undefined) return [];
    this.step!.open = undefined;
    return [{ type: open.kind === "text" ? "text-end" : "reasoning-end", id: open.id }];
  }

  private closeStep(): UIMessageChunk[] {
    if (this.step === undefined) return [];
    const out = this.closePart();
    this.step = undefined;
    out.push({ type: "finish-step" });
    return out;
  }
}

function newStep(turnId: string): Step {
  return { turnId, text: "", reasoning: "", calls: new Map(), open: undefined };
}

function toolOutput(part: Extract<RunStreamDurablePart, { type: "tool-result" }>): UIMessageChunk {
  const { result, toolCallId } = part;
  if (result.status === "ok") return { type: "tool-output-available", toolCallId, output: result.output ?? result.content.map((item) => item.text).join("") };
  if (result.error?.code === "APPROVAL_DENIED") return { type: "tool-output-denied", toolCallId };
  return { type: "tool-output-error", toolCallId, errorText: result.error?.message ?? result.content.map((item) => item.text).join("") };
}

function finish(runId: string, result: RunResult | WaitingRunResult): UIMessageChunk {
  if (result.waiting !== undefined) {
    return {
      type: "finish",
      finishReason: result.waiting.kind === "approval" ? "tool-calls" : "other",
      messageMetadata: { runId, waiting: result.waiting.kind },
    };
  }
  const { status } = result.outcome;
  return {
    type: "finish",
    finishReason: status === "completed" || status === "verified_success" ? "stop" : "other",
    messageMetadata: { runId, outcome: result.outcome },
  };
}

function errorText(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" ? `${code}: ${message}` : message;
}
