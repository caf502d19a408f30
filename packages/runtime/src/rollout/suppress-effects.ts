import { YokeError, type AnyToolDeclaration, type ToolCallContext, type ToolOutput, type ToolRegistryV1, type ToolResolution } from "@yoke/protocol";
import type { AnyTool } from "../define-tool.js";
import { argumentsDigest, type RecordedOutcomes } from "./recorded-outcomes.js";

/**
 * What a shadow does with the candidate's read-only tools (side-effect class `none`): `run`
 * them live (the default: a read has no effect, and the candidate sees the world as it is,
 * which includes what the primary just changed), or `suppress` them like every other class.
 */
export type ReadOnlyTools = "run" | "suppress";

/**
 * One call of the candidate that did not run: it was answered with the primary's recorded
 * outcome of the same tool and arguments (`primary_outcome`), or refused as suppressed
 * (`suppressed`: the primary made no such call); `compensation` for a compensation that
 * was not run.
 */
export interface SuppressedCall {
  /** The candidate's run (absent for a compensation, which is not told its run). */
  readonly runId?: string;
  readonly toolName: string;
  readonly argumentsDigest: string;
  readonly actionId: string;
  readonly sideEffect: AnyToolDeclaration["sideEffect"];
  readonly served: "primary_outcome" | "suppressed" | "compensation";
}

/** Where a suppressed call finds the primary's outcomes and records what it did instead of running. */
export interface SuppressionContext {
  readonly readOnlyTools: ReadOnlyTools;
  outcomesOf(runId: string): RecordedOutcomes | undefined;
  record(call: SuppressedCall): void;
}

/** The candidate's tools with every effect suppressed (see `suppressDeclaration`). */
export function suppressTools(tools: readonly AnyTool[], suppression: SuppressionContext): AnyTool[] {
  return tools.map((tool) => suppressDeclaration(tool, suppression) as AnyTool);
}

/**
 * A registry whose callable revisions run suppressed declarations; everything else (snapshot,
 * discovery, drift, sources) is the registry's own, so the candidate pins and is offered what
 * it would pin and be offered live.
 */
export function suppressRegistry(registry: ToolRegistryV1, suppression: SuppressionContext): ToolRegistryV1 {
  return {
    specificationVersion: "v1",
    register: (tool, options) => registry.register(tool, options),
    addSource: (source, options) => registry.addSource(source, options),
    refresh: () => registry.refresh(),
    setLifecycle: (name, lifecycle, reason) => registry.setLifecycle(name, lifecycle, reason),
    snapshot: () => registry.snapshot(),
    discover: (snapshot, request) => registry.discover(snapshot, request),
    async resolve(pinned): Promise<ToolResolution> {
      const resolution = await registry.resolve(pinned);
      if (resolution.status !== "callable") return resolution;
      return { status: "callable", revision: { ...resolution.revision, declaration: suppressDeclaration(resolution.revision.declaration, suppression) } };
    },
    readmissionRule: (drift, offered) => registry.readmissionRule(drift, offered),
    compatibilityEvents: () => registry.compatibilityEvents(),
    close: () => registry.close(),
  };
}

/**
 * The declaration with its effects taken out: `execute` of a tool with effects (and, with
 * `readOnlyTools: "suppress"`, of a read-only one) never calls the tool's handler. It returns
 * the primary's recorded result for the same tool and arguments when the primary has one (its
 * failure is a failure), else fails with TOOL_FAILED saying it was suppressed: the candidate's
 * journal never claims an effect happened that did not. `compensate` does nothing (nothing
 * was applied), and `reconcile` answers `not_applied` for the same reason.
 */
function suppressDeclaration(tool: AnyToolDeclaration, suppression: SuppressionContext): AnyToolDeclaration {
  if (tool.sideEffect === "none" && suppression.readOnlyTools === "run") return tool;
  const execute = async (input: unknown, context: ToolCallContext): Promise<ToolOutput> => {
    const runId = context.run?.runId ?? "";
    const digest = argumentsDigest(input);
    const recorded = suppression.outcomesOf(runId)?.take(tool.name, digest);
    const served = recorded === undefined ? "suppressed" : "primary_outcome";
    suppression.record({ runId, toolName: tool.name, argumentsDigest: digest, actionId: context.actionId, sideEffect: tool.sideEffect, served });
    if (recorded === undefined) {
      throw new YokeError(
        "TOOL_FAILED",
        `shadow mode: ${tool.name} was not run (its effects are suppressed) and the primary run made no call to it with these arguments`,
      );
    }
    if (recorded.result.status === "error") {
      throw new YokeError(
        "TOOL_FAILED",
        `shadow mode: ${tool.name} was not run; the primary's call with these arguments failed: ${recorded.result.error?.message ?? "no message"}`,
      );
    }
    const content = recorded.result.content.map((part) => part.text).join("");
    return {
      content,
      ...(recorded.result.output === undefined ? {} : { output: recorded.result.output }),
      ...(recorded.receipt === undefined ? {} : { receipt: recorded.receipt }),
    };
  };
  const suppressed: AnyToolDeclaration = {
    ...tool,
    execute,
    reconcile: async () => ({ status: "not_applied" }),
    ...(tool.compensate === undefined
      ? {}
      : {
          compensate: async (input: unknown, context) => {
            suppression.record({
              toolName: tool.name,
              argumentsDigest: argumentsDigest(input),
              actionId: context.actionId,
              sideEffect: tool.sideEffect,
              served: "compensation",
            });
          },
        }),
  };
  return suppressed;
}
