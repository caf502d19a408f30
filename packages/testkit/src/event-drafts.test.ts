import { EVENT_DATA_SCHEMAS, EventDraftSchema, canonicalJson } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eventBatchArbitrary, eventDraftArbitrary, jsonValueArbitrary, runStartedDraftArbitrary } from "./event-arbitraries.js";
import { eventDraft, runStartedDraft } from "./event-drafts.js";

describe("event drafts", () => {
  it("runStartedDraft is a valid canonical run.started draft, with overrides merged", () => {
    const draft = runStartedDraft({ at: 7, causationId: "cause_1", data: { task: "fix the build" } });
    expect(EventDraftSchema.parse(draft)).toEqual(draft);
    expect(EVENT_DATA_SCHEMAS["run.started"].parse(draft.data)).toEqual(draft.data);
    expect(draft).toMatchObject({ type: "run.started", at: 7, causationId: "cause_1", data: { task: "fix the build", tools: [] } });
    expect(runStartedDraft()).not.toHaveProperty("causationId");
  });

  it("eventDraft builds a draft of any type", () => {
    expect(eventDraft("test.noted", { index: 1 }, { at: 3, causationId: null })).toEqual({
      type: "test.noted",
      at: 3,
      causationId: null,
      data: { index: 1 },
    });
  });
});

describe("event arbitraries", () => {
  it("generate run.started drafts that pass the canonical schemas", () => {
    fc.assert(
      fc.property(runStartedDraftArbitrary(), (draft) => {
        expect(EventDraftSchema.parse(draft)).toMatchObject({ type: "run.started", data: draft.data });
        EVENT_DATA_SCHEMAS["run.started"].parse(draft.data);
      }),
      { numRuns: 100 },
    );
  });

  it("generate other drafts whose data survives schema parsing and canonical JSON exactly", () => {
    fc.assert(
      fc.property(eventDraftArbitrary(), (draft) => {
        expect(draft.type).not.toBe("run.started");
        const parsed = EventDraftSchema.parse(draft);
        expect(parsed.data).toEqual(draft.data);
        expect(JSON.parse(canonicalJson(parsed.data))).toEqual(draft.data);
      }),
      { numRuns: 100 },
    );
  });

  it("generate JSON values without -0", () => {
    fc.assert(
      fc.property(jsonValueArbitrary(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(value);
      }),
      { numRuns: 100 },
    );
  });

  it.each([true, false])("generate batches that start a run only when asked (startsRun: %s)", (startsRun) => {
    fc.assert(
      fc.property(eventBatchArbitrary({ startsRun, maxLength: 3 }), (batch) => {
        expect(batch.length).toBeGreaterThanOrEqual(1);
        expect(batch.length).toBeLessThanOrEqual(3);
        expect(batch.map((draft) => draft.type === "run.started")).toEqual(batch.map((_, index) => startsRun && index === 0));
      }),
      { numRuns: 100 },
    );
  });
});
