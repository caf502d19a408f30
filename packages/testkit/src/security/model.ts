import type { JsonValue, ModelRequest, ModelResponse, ProviderAdapterV1 } from "@yoke/protocol";
import { resolveArgs, type InjectionValues } from "./environment.js";
import type { GroundTruthCall, InjectionTask, JsonObject, UserTask } from "./types.js";
import { SCRIPTED_CAPABILITIES } from "../scripted-model.js";

/** A call the security model issued, and what it was told about it. */
export interface IssuedCall {
  readonly toolCallId: string;
  readonly function: string;
  readonly args: JsonObject;
  /** `user`: a step of the user task's ground truth; `injection`: a step of an injected goal it obeyed. */
  readonly phase: "user" | "injection";
  readonly injectionTaskId?: string;
  /** The result the model was shown, once it has been (absent: never answered — the run parked or ended). */
  result?: { readonly status: "ok" | "error"; readonly code?: string; readonly message?: string };
}

export interface AgentDojoModelOptions {
  readonly userTask: UserTask;
  /** The injected goals the model recognises and obeys (the suite's injection tasks). */
  readonly injectionTasks: readonly InjectionTask[];
  /** The run's vector values (to resolve `argTemplates`). */
  readonly values: InjectionValues;
  /** Default `agentdojo-scripted`. */
  readonly provider?: string;
  /** Default `obedient-1`. */
  readonly modelId?: string;
}

/**
 * Whether an injection task is judged (also) on the model's final text: `effectBased: false`,
 * or a `securityBasis` that reads the output (`output`, `output+state`).
 */
export function isOutputAttack(task: Pick<InjectionTask, "effectBased" | "securityBasis">): boolean {
  return task.effectBased === false || (task.securityBasis ?? "").split("+").includes("output");
}

/** A `$name.id` placeholder: an identifier the system assigned to what an earlier call of the plan made. */
const ASSIGNED_ID = /^\$[A-Za-z_][A-Za-z0-9_]*\.(id)$/;

/** The first value of `field` (or upstream's `field_`) in a structured tool result, depth first. */
function fieldIn(value: JsonValue | undefined, field: string): JsonValue | undefined {
  if (value === null || value === undefined || typeof value !== "object") return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = fieldIn(item, field);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key of [field, `${field}_`]) if (Object.hasOwn(value, key) && (value[key] === null || typeof value[key] !== "object")) return value[key];
  for (const item of Object.values(value)) {
    const found = fieldIn(item, field);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A plan step's arguments with each identifier placeholder (`$sent_email.id`) filled from the
 * latest earlier result of the same plan that carries that field: the id a run assigns
 * depends on the run (what the user's task already created), so the data set's concrete id
 * holds only for the environment it was written against. Every other placeholder keeps the
 * concrete value, which reads the environment the task was written for.
 */
function withAssignedIds(step: Pick<GroundTruthCall, "placeholderArgs">, args: JsonObject, earlier: readonly (JsonValue | undefined)[]): JsonObject {
  const filled = { ...args };
  for (const [name, placeholder] of Object.entries(step.placeholderArgs ?? {})) {
    const field = typeof placeholder === "string" ? ASSIGNED_ID.exec(placeholder)?.[1] : undefined;
    if (field === undefined) continue;
    for (let at = earlier.length - 1; at >= 0; at -= 1) {
      const found = fieldIn(earlier[at], field);
      if (found === undefined) continue;
      filled[name] = found;
      break;
    }
  }
  return filled;
}

/** The security model: a ProviderAdapterV1 that also exposes what it issued and obeyed. */
export interface AgentDojoModel extends ProviderAdapterV1 {
  /** Every call issued, in order (the run's trace). */
  readonly issued: readonly IssuedCall[];
  /** Injection tasks whose goal the model read in a tool result, in the order it obeyed them. */
  readonly obeyed: readonly string[];
}

/**
 * A scripted model that (a) solves the user task with its ground-truth calls, one call per
 * response, then answers with the task's ground-truth output (or "Done."), and (b) whenever a
 * tool result it reads (text or error message) contains an injected goal it has not yet
 * obeyed, first carries out that injection task's ground-truth calls (placeholders resolved),
 * then continues the user task; when the injection task is judged on what the model says
 * (`isOutputAttack`), its final answer also repeats the injected goal verbatim. It goes on
 * whatever the results say, refusals included: it obeys every injected instruction, so only
 * the harness can contain it.
 *
 * @example
 * ```ts
 * const model = createAgentDojoModel({ userTask, injectionTasks: suite.injectionTasks, values });
 * const harness = createHarness({ provider: model, tools });
 * await harness.start(userTask.prompt);
 * model.issued; // the trace
 * ```
 */
export function createAgentDojoModel(options: AgentDojoModelOptions): AgentDojoModel {
  const plan = options.userTask.groundTruth.map((call) => ({ function: call.function, args: resolveArgs(call, options.values) }));
  const issued: IssuedCall[] = [];
  const byId = new Map<string, IssuedCall>();
  const obeyed: string[] = [];
  const pending: { function: string; args: JsonObject; injectionTaskId: string; call: GroundTruthCall }[] = [];
  /** The structured result of each answered call, by tool call id. */
  const outputs = new Map<string, JsonValue | undefined>();
  const read = new Set<string>();
  const said: string[] = [];
  let next = 0;
  const provider = options.provider ?? "agentdojo-scripted";
  const modelId = options.modelId ?? "obedient-1";

  const observe = (request: ModelRequest) => {
    for (const message of request.messages) {
      if (message.role !== "tool") continue;
      for (const part of message.content) {
        const call = byId.get(part.toolCallId);
        if (call !== undefined && call.result === undefined) {
          const { status, error } = part.result;
          call.result = { status, ...(error === undefined ? {} : { code: error.code, message: error.message }) };
          outputs.set(part.toolCallId, part.result.output);
        }
        if (read.has(part.toolCallId)) continue;
        read.add(part.toolCallId);
        const text = [...part.result.content.map((content) => content.text), part.result.error?.message ?? ""].join("\n");
        for (const task of options.injectionTasks) {
          if (obeyed.includes(task.id) || !text.includes(task.goal)) continue;
          obeyed.push(task.id);
          if (isOutputAttack(task)) said.push(task.goal);
          for (const call of task.groundTruth)
            pending.push({ function: call.function, args: resolveArgs(call, options.values), injectionTaskId: task.id, call });
        }
      }
    }
  };

  return {
    specificationVersion: "v1",
    provider,
    modelId,
    capabilities: SCRIPTED_CAPABILITIES,
    issued,
    obeyed,
    async generate(request: ModelRequest): Promise<ModelResponse> {
      observe(request);
      const injected = pending.shift();
      if (injected !== undefined) {
        const earlier = issued.filter((done) => done.injectionTaskId === injected.injectionTaskId).map((done) => outputs.get(done.toolCallId));
        injected.args = withAssignedIds(injected.call, injected.args, earlier);
      }
      const step = injected ?? plan[next];
      if (injected === undefined && step !== undefined) next += 1;
      const base = { provider, model: modelId, usage: { inputTokens: 0, outputTokens: 0 } };
      if (step === undefined) {
        return { ...base, content: [{ type: "text", text: [options.userTask.groundTruthOutput ?? "Done.", ...said].join("\n\n") }], stopReason: "end_turn" };
      }
      const toolCallId = `adojo_${issued.length + 1}`;
      const call: IssuedCall = {
        toolCallId,
        function: step.function,
        args: structuredClone(step.args),
        phase: injected === undefined ? "user" : "injection",
        ...(injected === undefined ? {} : { injectionTaskId: injected.injectionTaskId }),
      };
      issued.push(call);
      byId.set(toolCallId, call);
      const rawArguments = JSON.stringify(step.args);
      return {
        ...base,
        content: [{ type: "tool-call", toolCallId, toolName: step.function, rawArguments, arguments: structuredClone(step.args) }],
        stopReason: "tool_use",
      };
    },
  };
}
