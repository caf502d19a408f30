import { YokeError } from "@yoke/protocol";

/** A person's answer to an approval request, as a UI message carries it back. */
export interface UIApprovalResponse {
  /** The run the approval belongs to: the assistant message's id (`toUIMessageStream` names it so), or its metadata's `runId`. */
  readonly runId: string;
  readonly approvalId: string;
  readonly approved: boolean;
  readonly reason?: string;
}

interface UIPartLike {
  readonly type?: unknown;
  readonly state?: unknown;
  readonly approval?: { readonly id?: unknown; readonly approved?: unknown; readonly reason?: unknown };
}

/**
 * The approval answers in the messages a `useChat` client sends (tool parts in state
 * `approval-responded`, after `addToolApprovalResponse`), with the run each belongs to. Answer
 * each with `harness.approve` / `harness.deny`, then continue the run (`resumeStream`).
 * CONFIG_INVALID when `messages` is not an array of messages.
 *
 * @example
 * ```ts
 * for (const answer of approvalResponsesOf(messages)) {
 *   if (answer.approved) await harness.approve(answer.runId, answer.approvalId, { approver: user });
 *   else await harness.deny(answer.runId, answer.approvalId, { approver: user, reason: answer.reason ?? "denied" });
 * }
 * ```
 */
export function approvalResponsesOf(messages: unknown): UIApprovalResponse[] {
  if (!Array.isArray(messages))
    throw new YokeError("CONFIG_INVALID", "approvalResponsesOf: messages must be an array of UI messages", { details: { option: "messages" } });
  const answers: UIApprovalResponse[] = [];
  for (const message of messages as { id?: unknown; role?: unknown; parts?: unknown; metadata?: { runId?: unknown } }[]) {
    if (message === null || typeof message !== "object" || message.role !== "assistant" || !Array.isArray(message.parts)) continue;
    const runId = typeof message.metadata?.runId === "string" ? message.metadata.runId : message.id;
    if (typeof runId !== "string") continue;
    for (const part of message.parts as UIPartLike[]) {
      if (part?.state !== "approval-responded" || typeof part.approval?.id !== "string" || typeof part.approval.approved !== "boolean") continue;
      const { id, approved, reason } = part.approval;
      answers.push({ runId, approvalId: id, approved, ...(typeof reason === "string" ? { reason } : {}) });
    }
  }
  return answers;
}
