// The runtime suite's corpus: journals the runtime's own tests wrote, captured by
// capture/capture-setup.ts. A file holds journals one after another: a header line
// `{ journal: "<test name>#<n>", fold? }`, then the journal's events (its streams in order).
// Imported with `.ts` specifiers: capture/select-stable.ts runs under plain node.
import { createMemoryJournal } from "@yoke/journal";
import { JournalEventSchema, canonicalJson, type JournalEvent } from "@yoke/protocol";
import { foldLines } from "./fold-digest.ts";

export interface CapturedJournal {
  readonly name: string;
  /** The fold lines recorded with it (committed fixtures only). */
  readonly fold: readonly string[] | undefined;
  /** Its events, canonical JSON, in the order captured. */
  readonly lines: string[];
}

export function parseCaptured(text: string): CapturedJournal[] {
  const journals: CapturedJournal[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const value = JSON.parse(line) as { journal?: string; fold?: string[]; seq?: number };
    if (typeof value.journal === "string" && value.seq === undefined) journals.push({ name: value.journal, fold: value.fold, lines: [] });
    else journals.at(-1)?.lines.push(line);
  }
  return journals;
}

/** Its events by stream (tenant and run), in the order the streams first appear. */
export function streamsOf(journal: CapturedJournal): Map<string, JournalEvent[]> {
  const streams = new Map<string, JournalEvent[]>();
  for (const line of journal.lines) {
    const event = JournalEventSchema.parse(JSON.parse(line));
    const key = JSON.stringify([event.tenantId, event.runId]);
    const events = streams.get(key) ?? [];
    events.push(event);
    streams.set(key, events);
  }
  return streams;
}

/**
 * The journal as a store given its drafts writes it today (empty when the store refuses them,
 * or a stream does not verify): the same lines when the hash chain is computed as it was.
 */
export async function rechain(journal: CapturedJournal): Promise<string[]> {
  const store = createMemoryJournal();
  const lines: string[] = [];
  try {
    for (const events of streamsOf(journal).values()) {
      const scope = { tenantId: events[0]!.tenantId, runId: events[0]!.runId };
      await store.append(
        scope,
        0,
        events.map(({ type, at, causationId, data }) => ({ type, at, causationId, data })),
      );
      const verdict = await store.verify(scope);
      if (!verdict.ok) return [];
      for await (const event of store.read(scope)) lines.push(canonicalJson(event));
    }
  } catch {
    return [];
  }
  return lines;
}

/** The fold of each of its streams (see fold-digest.ts). */
export function suiteFoldLines(journal: CapturedJournal): string[] {
  return foldLines(streamsOf(journal));
}
