import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFencedBackend, type FencedBackend } from "./fenced-backend.js";
import { rejectionOf } from "./rejection.js";

describe("fenced backend", () => {
  let dir: string;
  let backend: FencedBackend;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "yoke-fenced-"));
    backend = createFencedBackend(join(dir, "backend.jsonl"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a write older than the newest token seen for its key or its resource (TOOL_FENCED), and keeps it as refused", async () => {
    backend.apply({ resource: "card", key: "action_1", value: 1, token: 2 });
    const stale = await rejectionOf(Promise.resolve().then(() => backend.apply({ resource: "card", key: "action_2", value: 2, token: 1 })));
    expect(stale.code).toBe("TOOL_FENCED");
    expect(stale.details).toEqual({ key: "action_2", token: 1, fence: 2 });
    expect((await rejectionOf(Promise.resolve().then(() => backend.undo({ key: "action_1", token: 1 })))).code).toBe("TOOL_FENCED");
    backend.apply({ resource: "card", key: "action_3", value: 3, token: 2 });
    expect(backend.entries().map((entry) => [entry.op, entry.key, entry.accepted])).toEqual([
      ["apply", "action_1", true],
      ["apply", "action_2", false],
      ["undo", "action_1", false],
      ["apply", "action_3", true],
    ]);
    expect(backend.applied("action_1")).toBe(true);
    expect(backend.applied("action_2")).toBe(false);
  });

  it("lets a reconciliation raise its key's fence: the old owner's late write of that action is refused", async () => {
    expect(backend.reconcile({ key: "action_1", token: 2 })).toEqual({ applied: false });
    expect((await rejectionOf(Promise.resolve().then(() => backend.apply({ resource: "card", key: "action_1", value: 1, token: 1 })))).code).toBe(
      "TOOL_FENCED",
    );
    backend.apply({ resource: "card", key: "action_1", value: 1, token: 2 });
    expect(backend.reconcile({ key: "action_1", token: 3 })).toEqual({ applied: true });
    expect(backend.entries().filter((entry) => entry.op === "apply" && entry.accepted)).toHaveLength(1);
  });

  it("accepts a writer without a token only until a token was seen, and a reconciliation without one raises nothing", async () => {
    expect(backend.reconcile({ key: "action_1", token: undefined })).toEqual({ applied: false });
    backend.apply({ resource: "card", key: "action_1", value: 1, token: undefined });
    backend.apply({ resource: "card", key: "action_2", value: 2, token: 1 });
    expect((await rejectionOf(Promise.resolve().then(() => backend.apply({ resource: "card", key: "action_3", value: 3, token: undefined })))).code).toBe(
      "TOOL_FENCED",
    );
    expect(backend.undo({ key: "action_1", token: 1 })).toEqual({ undone: true });
    expect(backend.applied("action_1")).toBe(false);
  });

  it("never accepts a write below a token it accepted or was shown before for the same key or resource (property)", () => {
    const request = fc.record({
      op: fc.constantFrom("apply" as const, "undo" as const, "reconcile" as const),
      key: fc.constantFrom("k1", "k2", "k3"),
      resource: fc.constantFrom("r1", "r2"),
      token: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
    });
    let run = 0;
    fc.assert(
      fc.property(fc.array(request, { maxLength: 25 }), (requests) => {
        const subject = createFencedBackend(join(dir, `property-${run++}.jsonl`));
        for (const { op, key, resource, token } of requests) {
          try {
            if (op === "apply") subject.apply({ resource, key, value: 0, token });
            else if (op === "undo") subject.undo({ key, token });
            else subject.reconcile({ key, token });
          } catch {
            // refused: judged below from the kept entries
          }
        }
        const highest = new Map<string, number>();
        const resourceOf = new Map<string, string>();
        for (const entry of subject.entries()) {
          const scopes = [`key:${entry.key}`];
          const resource = entry.op === "apply" ? entry.resource : resourceOf.get(entry.key);
          if (resource !== undefined) scopes.push(`resource:${resource}`);
          const fence = Math.max(...scopes.map((scope) => highest.get(scope) ?? Number.NEGATIVE_INFINITY));
          if (entry.op !== "fence") expect(entry.accepted).toBe(fence === Number.NEGATIVE_INFINITY || (entry.token !== null && entry.token >= fence));
          if (!entry.accepted) continue;
          if (entry.op === "apply") resourceOf.set(entry.key, entry.resource);
          if (entry.token !== null) for (const scope of scopes) highest.set(scope, Math.max(highest.get(scope) ?? entry.token, entry.token));
        }
      }),
      { numRuns: 60 },
    );
  });
});
