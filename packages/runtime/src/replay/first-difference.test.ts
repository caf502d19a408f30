import type { JournalEvent } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { firstDifference } from "./first-difference.js";
import type { SchemaAddition } from "./schema-additions.js";

const event = (type: string, data: Record<string, unknown>): JournalEvent =>
  ({ tenantId: "t", runId: "run_a", seq: 3, type, schemaVersion: 1, at: 10, causationId: null, prevHash: "x", hash: "y", data }) as unknown as JournalEvent;

const added: SchemaAddition[] = [{ type: "tool.rejected", path: "data.influence", since: "0000000", why: "a test addition" }];

describe("firstDifference and declared schema additions", () => {
  it("a declared field the record lacks and the replay holds is equal", () => {
    expect(
      firstDifference(event("tool.rejected", { code: "X" }), event("tool.rejected", { code: "X", influence: { integrity: "trusted" } }), added),
    ).toBeNull();
  });

  it("without the declaration the same pair differs at the field", () => {
    expect(firstDifference(event("tool.rejected", { code: "X" }), event("tool.rejected", { code: "X", influence: 1 }), [])).toEqual({
      path: "data.influence",
      recorded: undefined,
      replayed: 1,
    });
  });

  it("a declared field the replay drops, or holds with another value, still differs", () => {
    expect(firstDifference(event("tool.rejected", { influence: 1 }), event("tool.rejected", {}), added)).toMatchObject({
      path: "data.influence",
      replayed: undefined,
    });
    expect(firstDifference(event("tool.rejected", { influence: 1 }), event("tool.rejected", { influence: 2 }), added)).toMatchObject({
      path: "data.influence",
    });
  });

  it("the declaration holds for its own type and path only", () => {
    expect(firstDifference(event("action.admitted", {}), event("action.admitted", { influence: 1 }), added)).toMatchObject({ path: "data.influence" });
    expect(firstDifference(event("tool.rejected", { policy: {} }), event("tool.rejected", { policy: { influence: 1 } }), added)).toMatchObject({
      path: "data.policy.influence",
    });
  });
});
