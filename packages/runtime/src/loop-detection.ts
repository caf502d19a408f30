import type { RunState, ToolLoopPolicy, YokeEventDraft } from "@yoke/protocol";
import type { RunContext } from "./run-context.js";
import type { TurnParticipant } from "./turn/participant.js";
import type { LoopEntry } from "./loop/run-facts.js";
import type { SignatureRules } from "./loop/call-signature.js";

/** The journaled source of the note that tells the model it is going round in circles. */
export const LOOP_DETECTION_SOURCE = "loop-detection";

type CallEntry = Extract<LoopEntry, { kind: "call" }>;

/** A detected loop: what repeated and how. */
export interface DetectedLoop {
  readonly pattern: "repeat" | "cycle";
  readonly toolName: string;
  readonly signature: string;
  readonly count: number;
  readonly cycle?: readonly CallEntry[];
}

/**
 * Decides, at a turn boundary, whether the calls settled since the last input from a person
 * are a loop, from the run's facts alone (rebuilt from the journal, so a resume decides the
 * same): the newest call's signature `threshold` times (the tool's own threshold, else the
 * harness's), or the newest 2×L calls being one cycle of L (2 ≤ L ≤ `cycle`) twice. Calls of
 * tools that opted out are not counted. Only a newest call decides: after steering, the next
 * call that still loops escalates.
 */
export function detectLoop(context: RunContext): { loop: DetectedLoop; steered: boolean } | undefined {
  const options = context.deps.loopControl.loopDetection;
  if (options === undefined) return undefined;
  const entries = context.facts.loop;
  const last = entries.at(-1);
  if (last === undefined || last.kind !== "call") return undefined;
  const policy = (entry: CallEntry): ToolLoopPolicy => loopPolicyOf(context, entry);
  if (policy(last).optOut !== undefined) return undefined;
  // Incremental (facts.loopIndex), so a turn's check does not grow with the run. Calls with one
  // signature are calls of one tool revision (the signature digests it), so one policy: all of
  // them count when the newest counts.
  const steered = context.facts.loopIndex.steers > 0;
  const count = context.facts.loopIndex.counts.get(last.signature) ?? 0;
  const threshold = policy(last).threshold ?? options.threshold;
  if (count >= threshold) return { loop: { pattern: "repeat", toolName: last.toolName, signature: last.signature, count }, steered };
  // A cycle is decided by the newest 2 × `cycle` calls that count, at most.
  const calls: CallEntry[] = [];
  for (let index = entries.length - 1; index >= 0 && calls.length < 2 * options.cycle; index--) {
    const entry = entries[index]!;
    if (entry.kind === "call" && policy(entry).optOut === undefined) calls.unshift(entry);
  }
  for (let length = 2; length <= options.cycle && length * 2 <= calls.length; length++) {
    const tail = calls.slice(-2 * length);
    const first = tail.slice(0, length);
    const repeated = tail.slice(length).every((entry, index) => entry.signature === first[index]!.signature);
    const varied = first.some((entry) => entry.signature !== first[0]!.signature);
    if (repeated && varied) {
      return { loop: { pattern: "cycle", toolName: last.toolName, signature: last.signature, count: 2, cycle: first }, steered };
    }
  }
  return undefined;
}

/**
 * The signature rules of a tool by name (`caseInsensitive`), from the harness alone: the
 * `perTool` entry, else the harness's tool's declared `loop` (as `loopPolicyOf` ranks them).
 * Never from a revision the run resolved: a resume must compute the signatures the live run did.
 */
export function signatureRules(deps: Pick<RunContext["deps"], "loopControl" | "tools">): (toolName: string) => SignatureRules | undefined {
  return (toolName) => deps.loopControl.loopDetection?.perTool[toolName] ?? deps.tools.get(toolName)?.loop;
}

/** The tool's loop policy: the harness's `perTool` entry, else the declaration's `loop`, else none. */
function loopPolicyOf(context: RunContext, entry: CallEntry): ToolLoopPolicy {
  const configured = context.deps.loopControl.loopDetection?.perTool[entry.toolName];
  if (configured !== undefined) return configured;
  const declared = (entry.toolRevision === undefined ? undefined : context.revisions.get(entry.toolRevision)) ?? context.deps.tools.get(entry.toolName);
  return declared?.loop ?? {};
}

/**
 * What a detected loop adds at the turn boundary: steering (`loop.detected` response `steer` +
 * `input.added` source `loop-detection`, then the turn goes on), or, when the model was
 * already steered, escalation (`loop.detected` response `escalate` + `run.waiting` kind
 * `escalation`: the run waits for a person). `undefined` when there is no loop.
 */
export function loopDrafts(context: RunContext, state: RunState): { kind: "steer" | "escalate"; drafts: YokeEventDraft[] } | undefined {
  const detected = detectLoop(context);
  if (detected === undefined) return undefined;
  const { loop, steered } = detected;
  const turnId = state.currentTurnId ?? "";
  const at = context.deps.clock.now();
  const response = steered ? "escalate" : "steer";
  const event: YokeEventDraft = {
    type: "loop.detected",
    at,
    causationId: turnId || null,
    data: {
      turnId,
      toolName: loop.toolName,
      signature: loop.signature,
      count: loop.count,
      pattern: loop.pattern,
      ...(loop.cycle === undefined ? {} : { cycleLength: loop.cycle.length }),
      response,
    },
  };
  const what = describeLoop(loop);
  context.logger.warn({ turnId, toolName: loop.toolName, pattern: loop.pattern, count: loop.count, response }, "loop detected");
  if (steered) {
    const reason = `loop detected after steering: ${what}`;
    return {
      kind: "escalate",
      drafts: [event, { type: "run.waiting", at, causationId: turnId || null, data: { ...(turnId ? { turnId } : {}), kind: "escalation", reason } }],
    };
  }
  const text = `[runtime] Loop detected: ${what}. Repeating it will not change the result. Try a different approach, or answer with what you have; if the loop goes on, the run stops for a person.`;
  return {
    kind: "steer",
    drafts: [event, { type: "input.added", at, causationId: turnId || null, data: { source: LOOP_DETECTION_SOURCE, content: [{ type: "text", text }] } }],
  };
}

function describeLoop(loop: DetectedLoop): string {
  if (loop.pattern === "repeat") return `you called ${loop.toolName} ${loop.count} times with the same arguments and got the same result`;
  const names = loop.cycle!.map((entry) => entry.toolName).join(" → ");
  return `your last calls repeat the same cycle of ${loop.cycle!.length} calls (${names}) twice, with the same arguments and results`;
}

/** A loop found at the turn boundary: the model is steered (a note), or, steered already, the run waits for a person. */
export const loopDetection: TurnParticipant = {
  name: "loop detection",
  boundary: (context, state) => {
    const loop = loopDrafts(context, state);
    if (loop === undefined) return undefined;
    // Steering did not break the loop: a person decides (the run waits, no new turn), after the notes before it.
    return loop.kind === "escalate" ? { end: loop.drafts, keepNotes: true } : { note: loop.drafts };
  },
};
