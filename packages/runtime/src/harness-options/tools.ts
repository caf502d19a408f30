import type { DiscoveryRequest, RunState, ToolFilter, ToolRegistryV1 } from "@yoke/protocol";
import type { AnyTool } from "../define-tool.js";
import type { SubagentOptions } from "../subagents/subagent-options.js";

/**
 * The tools a run may call and the limits on calling them: where the tools come from (`tools`
 * or a `registry`), what each turn is offered (`discovery`), the runtime's own
 * `spawn_subagent` tool (`subagents`), and how many calls, how many at once and how many bytes
 * of arguments and results a run keeps. One of the groups `HarnessOptions` is composed of.
 *
 * @example
 * ```ts
 * const tools: HarnessToolOptions = {
 *   tools: [readFile, writeFile],
 *   maxToolCallsPerTurn: 16,
 *   maxConcurrentTools: 4,
 *   maxToolInputBytes: 65_536,
 *   maxEventOutputBytes: 131_072,
 * };
 * const harness = createHarness({ ...tools, provider });
 * ```
 */
export interface HarnessToolOptions {
  /**
   * Default: none. Sugar for a local registry of these tools (`createToolRegistry({ tools })`
   * from @yoke/tool-registry): a run pins their revisions like any registry's. Give either
   * `tools` or `registry`, not both (CONFIG_INVALID).
   */
  tools?: readonly AnyTool[];
  /**
   * Where runs get their tools (`@yoke/tool-registry`, local and MCP origins). A run pins
   * `registry.snapshot()` in `run.started.toolSnapshot` and calls only those revisions (or
   * ones a declared rule re-admitted, journaled as `tool.readmitted`), on every resume too;
   * each turn offers what `registry.discover` gives for `discovery` (journaled in
   * `turn.started.offered`); each `action.admitted` names the revision it runs. A call to a
   * pinned tool whose live definition drifted is journaled as `tool.drifted` and refused
   * (TOOL_DRIFTED, a tool error the model sees) unless a re-admission rule matches; an
   * in-flight action whose revision drifted while no process ran it stops the run with
   * TOOL_DRIFTED. Tools of a non-local origin reach the context compiler as untrusted.
   *
   * @example
   * ```ts
   * const registry = createToolRegistry({
   *   tools: [readNotes],
   *   readmission: [{ id: "descriptions-ok", changes: ["description"], origin: { kind: "mcp-stdio" } }],
   * });
   * await registry.addSource(mcpStdioSource({ command: "node", args: ["server.mjs"] }), { trustDomain: "third-party" });
   * const harness = createHarness({ provider, registry, discovery: { principal: "user_42", filter: { capabilities: ["fs.read"] } } });
   * ```
   */
  registry?: ToolRegistryV1;
  /**
   * Who asks for tools, and with what filter, on each turn of a run: `{ principal, filter? }`
   * (the task is the run's), or a function of the run's state that returns the whole
   * `DiscoveryRequest`. Default: the tenant as principal, no filter (every callable pinned tool
   * is offered). What a turn was offered is journaled, so a resume never asks again.
   *
   * @experimental The function form is given the whole `RunState`; once runs continue a
   * conversation (sessions) what it is given, and the request it returns, may change.
   *
   * @example
   * ```ts
   * createHarness({ provider, registry, discovery: { principal: "user_42", filter: { capabilities: ["fs.read"], owners: ["docs-team"] } } });
   * // per run: read-only tools once the run has used half its turns
   * createHarness({
   *   provider,
   *   registry,
   *   discovery: (state) => ({ principal: "user_42", task: state.task, ...(state.turns >= 5 ? { filter: { sideEffects: ["none"] } } : {}) }),
   * });
   * ```
   */
  discovery?: { readonly principal: string; readonly filter?: ToolFilter } | ((state: RunState) => DiscoveryRequest);
  /**
   * A `spawn_subagent` tool whose action starts a child run (`SubagentOptions`).
   *
   * @experimental The spawn tool's input, the child's default result and what a child is
   * forked from may change as delegation (a run's declared authority) is added.
   */
  subagents?: SubagentOptions;
  /**
   * Tool calls one model response may run. Default 64. Calls past it, in proposal order, are
   * not run: they are answered together by one `tool.excess_rejected` (TOOL_CALL_LIMIT), whose
   * result the first of them gets; the others are left out of the conversation, so the next
   * request stays bounded however many calls the model proposed. Pinned in `run.started`
   * (`limits.maxToolCallsPerTurn`), so a resume decides the same way.
   */
  maxToolCallsPerTurn?: number;
  /**
   * Tool handlers of one run that may run at once. Default 8. The others wait for a slot, in
   * the order they become ready (proposal order among calls ready together); conflicting
   * calls still run in proposal order. Not pinned: changing it never changes a decision.
   */
  maxConcurrentTools?: number;
  /**
   * UTF-8 bytes of one tool call's arguments (as the model sent them) a run keeps. Default
   * 1 048 576 (1 MiB). A larger call is never run and its arguments are never journaled: the
   * response is journaled with the call's arguments replaced by `{}` and their size and
   * SHA-256 (`omitted`), and the model is told TOOL_INPUT_TOO_LARGE. Pinned in `run.started`
   * (`limits.maxToolInputBytes`), so a resume decides the same way.
   */
  maxToolInputBytes?: number;
  /**
   * UTF-8 bytes of one tool result (its text, structured output and error message) one
   * journal event may hold inline. Default 262 144 (256 KiB). A larger result is never
   * journaled whole: with `artifacts`, the whole result is put there first and the event
   * keeps its first `maxEventOutputBytes` of text and the artifact's ref
   * (`result.truncation.artifact`); without a store (or when the store refuses it as too
   * large), the model is shown a TOOL_OUTPUT_TOO_LARGE error instead, the action stays as it
   * settled, and the run goes on. Pinned in `run.started` (`limits.maxEventOutputBytes`).
   */
  maxEventOutputBytes?: number;
}
