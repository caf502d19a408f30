// What a golden scenario is: a world (the scripted model's answers and the harness's options,
// built fresh for every harness so tools start with clean state) and a drive (the harness
// calls a user makes: start, approve, resume, interrupt), whose returns it writes down.
import type { Harness, HarnessOptions } from "@yoke/runtime";
import type { ScriptedQueues, stillClock } from "./corpus-kit.js";

/** What a world may reach: objects that outlive one harness (a durable store), the clock, a second harness on the same journal (another process). */
export interface ScenarioEnv {
  readonly shared: Record<string, unknown>;
  readonly clock: ReturnType<typeof stillClock>;
  readonly other: () => Harness;
  /**
   * A harness of another release on the same journal, script and clock (a deploy between two
   * calls): the world's options with `options` over them.
   */
  readonly successor: (options: Omit<Partial<HarnessOptions>, "journal" | "provider" | "clock" | "ids">) => Harness;
}

export interface ScenarioWorld {
  readonly script: ScriptedQueues;
  readonly options: Omit<Partial<HarnessOptions>, "journal" | "provider" | "clock" | "ids">;
}

export interface DriveContext {
  readonly harness: Harness;
  readonly env: ScenarioEnv;
  /** What a harness call returned (or threw), as one canonical JSON line. */
  readonly outcomeOf: (call: () => Promise<unknown>) => Promise<string>;
}

export interface Scenario {
  /** The fixture directory's name. */
  readonly name: string;
  /** Which participant of the loop it makes act. */
  readonly about: string;
  readonly world: (env: ScenarioEnv) => ScenarioWorld;
  /** The harness calls; returns one line per call. Default: `start` the run. */
  readonly drive: (context: DriveContext) => Promise<string[]>;
  /** Every resume also runs on a real SQLite file and must append the same bytes. */
  readonly sqlite?: boolean;
}
