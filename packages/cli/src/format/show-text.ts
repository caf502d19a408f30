import type { Influence, PolicyDelegation } from "@yoke/protocol";
import type { ActionView, ChainStatus, ModelCallView, ResponsePartView, RunView, TurnView } from "../inspect/run-view.js";
import { clip, short } from "../inspect/clip.js";
import { carriesLine } from "./carries-line.js";
import { outcomeText } from "./outcome-line.js";
import { money, time } from "./text.js";

export function chainLine(chain: ChainStatus): string {
  if (!chain.checked) return "chain: not checked";
  return chain.ok
    ? `chain: ok (${chain.events} events, head ${short(chain.headHash)})`
    : `chain: BROKEN at seq ${chain.firstBadSeq} (${chain.reason}): ${chain.message}`;
}

function part(entry: ResponsePartView): string {
  switch (entry.type) {
    case "text":
      return JSON.stringify(clip(entry.text, 60));
    case "refusal":
      return `[refusal] ${JSON.stringify(clip(entry.text, 60))}`;
    case "reasoning":
      return "[reasoning]";
    case "tool-call":
      return `${entry.toolName}(${clip(entry.arguments, 50)}${entry.truncated ? "… cut by the output limit" : ""})${entry.withheld ? " withheld: the response was refused" : ""}`;
    case "server-tool":
      return `[${entry.text}]`;
  }
}

function modelCall(call: ModelCallView, currency: string | undefined): string[] {
  const lines: string[] = [];
  const manifest = call.manifest;
  const head = `  model call${call.requestInTurn > 0 ? ` ${call.requestInTurn + 1}` : ""}: request ${short(call.requestHash)}, ${call.messageCount} messages`;
  if (manifest) {
    const trust = Object.entries(manifest.trust)
      .map(([label, count]) => `${label} ${count}`)
      .join(", ");
    lines.push(
      `${head}; manifest ${manifest.counts.included} included, ${manifest.counts.truncated} cut, ${manifest.counts.omitted} omitted, ${manifest.counts.compacted} compacted (${manifest.kept} kept from before)`,
      `    tokens ${manifest.allocation.used} used of ${manifest.allocation.contextWindow} (output reserve ${manifest.allocation.outputReserve}, mandatory ${manifest.allocation.mandatory}, free ${manifest.allocation.free}); trust: ${trust}`,
    );
    for (const item of manifest.items.filter((entry) => entry.decision !== "included")) {
      const cut = item.truncations.map((entry) => `part ${entry.part}: ${entry.keptBytes} of ${entry.originalBytes} bytes`).join(", ");
      lines.push(`    ${item.decision} ${item.id} (${item.kind}, ${item.trust})${item.reason ? `: ${item.reason}` : ""}${cut ? ` [${cut}]` : ""}`);
    }
  } else {
    lines.push(head);
  }
  for (const failure of call.failures)
    lines.push(`    attempt ${failure.attempt} failed ${failure.code}${failure.retrying ? ", retried" : ""}: ${clip(failure.message)}`);
  const response = call.response;
  if (response) {
    lines.push(
      `  response ${response.stopReason}: ${response.parts.map(part).join(", ")}`,
      `    ${response.provider}/${response.model}, ${response.usage.inputTokens} in, ${response.usage.outputTokens} out${call.cost === undefined ? "" : `, cost ${money(call.cost, currency)}`}`,
    );
  } else {
    lines.push("  no response journaled");
  }
  return lines;
}

function action(entry: ActionView): string[] {
  const strip = entry.steps.map((step) => `${step.verdict === undefined ? step.state : `reconciled: ${step.verdict}`}#${step.seq}`).join(" → ");
  const lines = [`  action ${entry.toolName} ${entry.actionId} (${entry.sideEffect}): ${entry.state}`, `    ${strip}`];
  if (entry.influence !== undefined) lines.push(`    ${influenceLine(entry.influence)}`);
  if (entry.carries !== undefined) lines.push(`    ${carriesLine(entry.carries)}`);
  if (entry.delegation !== undefined) lines.push(`    ${delegationLine(entry.delegation)}`);
  for (const attempt of entry.attempts) {
    const outcome = attempt.outcome === undefined ? "no outcome journaled" : `${attempt.outcome} #${attempt.outcomeSeq}`;
    const duration = attempt.durationMs === undefined ? "" : ` in ${attempt.durationMs} ms`;
    lines.push(
      `    attempt ${attempt.attempt}: ${outcome}${duration}${attempt.detail ? `: ${clip(attempt.detail)}` : ""}${attempt.receipt === undefined ? "" : `, receipt ${clip(JSON.stringify(attempt.receipt), 40)}`}`,
    );
  }
  for (const reconciliation of entry.reconciliations) lines.push(`    reconciled #${reconciliation.seq}: ${reconciliation.verdict}`);
  for (const compensation of entry.compensations)
    lines.push(`    ${compensation.step} #${compensation.seq}${compensation.detail ? `: ${clip(compensation.detail)}` : ""}`);
  if (entry.result)
    lines.push(
      `    result ${entry.result.status}${entry.result.errorCode ? ` ${entry.result.errorCode}` : ""}: ${JSON.stringify(clip(entry.result.text, 60))}`,
    );
  return lines;
}

/** One line: the integrity the decision was made under and, when untrusted, the items that lowered it. */
export function influenceLine(influence: Influence): string {
  if (influence.integrity === "trusted") return "influence: trusted (only the run's principals and declared records were read)";
  const items = influence.loweredBy.map((item) =>
    item.toolName === undefined ? `${item.itemId} (${item.label})` : `${item.itemId} (${item.toolName} output)`,
  );
  const more = influence.more === undefined ? "" : ` and ${influence.more} more`;
  return `influence: untrusted, lowered by ${items.join(", ")}${more}`;
}

/** One line: whether a grant of the run's delegation covered the call, and how much of it was spent before it. */
export function delegationLine(delegation: PolicyDelegation): string {
  const counts = `${delegation.used} of ${delegation.max} used before this call`;
  if (delegation.within) return `delegation: within grant ${delegation.grantId ?? "(unnamed)"} (${counts})`;
  if (delegation.grantId !== undefined) return `delegation: outside, grant ${delegation.grantId} is spent (${counts})`;
  return "delegation: outside, no grant of the run's delegation covers this call";
}

function turn(entry: TurnView, view: RunView, actions: ReadonlyMap<string, ActionView>): string[] {
  const currency = view.usage.currency;
  const usage = `${entry.usage.inputTokens} in, ${entry.usage.outputTokens} out${entry.cost === undefined ? "" : `, cost ${money(entry.cost, currency)}`}`;
  const lines = [`turn ${entry.index} (seq ${entry.firstSeq}–${entry.lastSeq}): ${usage}`];
  for (const call of entry.modelCalls) lines.push(...modelCall(call, currency));
  for (const id of entry.actionIds) {
    const found = actions.get(id);
    if (found) lines.push(...action(found));
  }
  for (const rejection of entry.rejections) lines.push(`  rejected ${rejection.toolName} #${rejection.seq} ${rejection.code}: ${clip(rejection.message)}`);
  for (const input of entry.inputs) lines.push(`  input #${input.seq} (${input.source}): ${JSON.stringify(clip(input.text))}`);
  for (const run of view.verifierRuns.filter((candidate) => candidate.turnId === entry.turnId)) {
    lines.push(
      `  verifier ${run.verifierId} #${run.startedSeq}: ${run.finished === undefined ? "no verdict" : run.finished.passed ? "passed" : `failed: ${clip(run.finished.reason ?? "")}`}`,
    );
  }
  return lines;
}

/** `yoke show` in text, as lines: the header, one block per turn, then run-level records and (with `events`) the event timeline. */
export function showText(view: RunView, options: { events: boolean }): string[] {
  const { header } = view;
  const outcome = header.outcome ? outcomeText(header.outcome, (reason) => clip(reason, 70)) : header.status;
  const lines = [
    `run ${header.runId} (tenant ${header.tenantId}): ${header.status === "finished" ? outcome : header.status} after ${header.turns} turns`,
    `task: ${JSON.stringify(clip(header.task, 100))}`,
    ...(header.parent ? [`parent: run ${header.parent.runId}, action ${header.parent.actionId}`] : []),
    `started ${time(header.startedAt)}, last event ${time(header.lastEventAt)} (seq ${header.lastSeq}, ${header.events} events)`,
    ...(header.release === undefined ? [] : [releaseLine(header.release, header.releasedAt)]),
    `usage: ${view.usage.inputTokens} in, ${view.usage.outputTokens} out${view.usage.cost === undefined ? "" : `, cost ${money(view.usage.cost, view.usage.currency)}`}`,
    chainLine(view.chain),
  ];
  const actions = new Map(view.actions.map((entry) => [entry.actionId, entry]));
  for (const entry of view.turns) if (entry.index > 0 || entry.actionIds.length > 0) lines.push("", ...turn(entry, view, actions));
  const extra: string[] = [];
  for (const approval of view.approvals) {
    extra.push(
      `approval ${approval.approvalId} for ${approval.actionId} #${approval.requestedSeq}: ${approval.decision ? `${approval.decision.kind}${approval.decision.by ? ` by ${approval.decision.by}` : ""}` : "pending"}`,
      `  asked by rule ${approval.rule}: ${clip(approval.reason)}${approval.expiresAt === undefined ? "" : `; expires ${time(approval.expiresAt)}`}`,
    );
  }
  for (const wait of view.waits) extra.push(`waited #${wait.seq} (${wait.kind}): ${clip(wait.reason)}`);
  for (const interrupt of view.interrupts) extra.push(`interrupt ${interrupt.interruptId} #${interrupt.seq}: ${interrupt.kind}`);
  for (const loop of view.loopDetections) extra.push(`loop #${loop.seq}: ${loop.toolName} ${loop.pattern} ×${loop.count}, ${loop.response}`);
  for (const failure of view.failures) extra.push(`stopped #${failure.seq}: ${failure.code}: ${clip(failure.message)}`);
  if (view.budget)
    extra.push(
      `budget ${view.budget.budgetId}: ${view.budget.reservations.length} reservations, ${view.budget.open} open, ${view.budget.overshoots} overshoots`,
    );
  for (const problem of view.problems) extra.push(`problem #${problem.seq}: ${problem.message}`);
  if (extra.length > 0) lines.push("", ...extra);
  if (options.events) {
    lines.push("", "events:");
    for (const entry of view.timeline) lines.push(`  #${String(entry.seq).padStart(4)}  ${entry.type.padEnd(24)} ${entry.summary}`);
  }
  return lines;
}

/** The release a run is pinned to: its runtime and event schema, and since when when it changed after the start. */
function releaseLine(release: NonNullable<RunView["header"]["release"]>, since: number | undefined): string {
  return `release: ${release.runtime} (event schema ${release.eventSchemaVersion})${since === undefined ? "" : `, pinned since #${since}`}`;
}
