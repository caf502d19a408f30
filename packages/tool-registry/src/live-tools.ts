// The tools a registry holds: every revision registered in this process by digest, the live one
// of each name, each name's lifecycle, and the drifts seen as live revisions were replaced.
import { YokeError, canonicalJson, type ToolDrift, type ToolLifecycle, type ToolRevisionRecord, type ToolRevisionV1 } from "@yoke/protocol";
import { bodyDigestOf, changesBetween } from "./changes.js";

/** A tool name's lifecycle, why it was set, and when (by the registry's clock, when it has one). */
export interface LifecycleState {
  readonly lifecycle: ToolLifecycle;
  readonly reason?: string;
  readonly since?: number;
}

const originKey = (revision: ToolRevisionRecord) => canonicalJson(revision.origin);

export class LiveTools {
  /** Every revision registered in this process (including ones no longer live). */
  readonly byDigest = new Map<string, ToolRevisionV1>();
  /** The revision a source offers now under each name, whatever its lifecycle. */
  readonly liveByName = new Map<string, ToolRevisionV1>();
  readonly lifecycles = new Map<string, LifecycleState>();
  /** The drifts seen so far, in the order they were seen. */
  readonly events: ToolDrift[] = [];
  private readonly bodies = new Map<string, string>();

  lifecycleOf(name: string): LifecycleState {
    return this.lifecycles.get(name) ?? { lifecycle: "active" };
  }

  /** The digest of a revision's body (all but its name): a rename keeps it. Cached for stored revisions. */
  bodyOf(record: ToolRevisionRecord): string {
    let body = this.bodies.get(record.digest);
    if (body === undefined) {
      body = bodyDigestOf(record);
      if (this.byDigest.has(record.digest)) this.bodies.set(record.digest, body);
    }
    return body;
  }

  /** The error of registering `revision` when another origin holds its name live. */
  conflictOf(revision: ToolRevisionRecord): YokeError | undefined {
    const holder = this.liveByName.get(revision.name);
    if (holder === undefined || originKey(holder) === originKey(revision)) return undefined;
    return new YokeError("TOOL_REGISTRATION_CONFLICT", `tool ${revision.name} is already registered from another origin`, {
      details: { tool: revision.name, holder: holder.origin, offered: revision.origin },
    });
  }

  /** Makes `revision` the live one of its name; returns the drift when it replaces another. */
  install(revision: ToolRevisionV1): { revision: ToolRevisionV1; drift?: ToolDrift } {
    const previous = this.liveByName.get(revision.name);
    const kept = this.stored(revision);
    this.liveByName.set(revision.name, kept);
    if (previous === undefined || previous.digest === kept.digest) return { revision: kept };
    return { revision: kept, drift: { toolName: kept.name, pinned: previous.digest, offered: kept.digest, changes: changesBetween(previous, kept) } };
  }

  /** Installs `revision` and records the drift, if any. */
  installRecorded(revision: ToolRevisionV1): ToolRevisionV1 {
    const { revision: kept, drift } = this.install(revision);
    if (drift) this.events.push(drift);
    return kept;
  }

  /** Whether a tool of this name was ever registered. */
  known(name: string): boolean {
    return this.liveByName.has(name) || [...this.byDigest.values()].some((revision) => revision.name === name);
  }

  private stored(revision: ToolRevisionV1): ToolRevisionV1 {
    const known = this.byDigest.get(revision.digest);
    if (known) return known;
    this.byDigest.set(revision.digest, revision);
    return revision;
  }
}
