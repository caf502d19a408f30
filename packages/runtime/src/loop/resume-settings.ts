import { YokeError, canonicalJson, type CallSettingsChange } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";
import { changedSettings } from "../run-settings.js";
import { commitTurn } from "../turn/turn.js";

/**
 * Journals a resume's settings (`settings.changed`) before the run goes on, so a later
 * resume without settings keeps them. RUN_FINISHED for a run that has ended.
 */
export async function changeSettings(context: RunContext, given: CallSettingsChange | undefined): Promise<void> {
  if (given === undefined) return;
  const state = context.accumulator.peek();
  if (state.phase === "finished") {
    throw new YokeError("RUN_FINISHED", `run ${state.runId} has finished (${state.outcome?.status}): its settings cannot change`, {
      details: { ...context.scope },
    });
  }
  const settings = changedSettings(state.settings, given);
  if (canonicalJson(settings) === canonicalJson(state.settings ?? {})) return;
  await commitTurn(context, [{ type: "settings.changed", at: context.deps.clock.now(), causationId: state.currentTurnId ?? null, data: { settings } }]);
}
