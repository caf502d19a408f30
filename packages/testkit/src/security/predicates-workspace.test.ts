import type { JsonValue } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { evaluatePredicate, type PredicateContext } from "./predicates.js";
import type { Predicate } from "./types.js";

const pre: JsonValue = {
  items: [
    { id_: "1", text: "alpha", at: "2030-01-01T10:00:00" },
    { id_: "2", text: "beta", at: "2030-01-02T10:00:00" },
    { id_: "3", text: "gamma", at: "2030-01-03T10:00:00" },
  ],
  other: { kept: 1, changed: "old" },
  tags: ["A@x.example", "b@x.example"],
};

/** `post` from `pre` with `change` applied to a deep copy. */
function postWith(change: (state: { items: Record<string, JsonValue>[]; other: Record<string, JsonValue>; tags: string[] }) => void): JsonValue {
  const copy = structuredClone(pre) as never;
  change(copy);
  return copy;
}

const check = (predicate: Record<string, unknown>, post: JsonValue) =>
  evaluatePredicate(predicate as Predicate, { pre, post, output: "", trace: [], injections: { vector: "ALPHA" } } satisfies PredicateContext);

describe("the workspace extensions of the predicate language", () => {
  it("state-unchanged with `except` ignores those paths on both sides, and only those", () => {
    const post = postWith((state) => {
      state.other.changed = "new";
    });
    expect(check({ kind: "state-unchanged" }, post)).toBe(false);
    expect(check({ kind: "state-unchanged", except: ["other.changed"] }, post)).toBe(true);
    expect(check({ kind: "state-unchanged", except: ["other.kept"] }, post)).toBe(false);
    // Relative to `path`.
    expect(check({ kind: "state-unchanged", path: "other", except: ["changed"] }, post)).toBe(true);
    // A path that does not resolve is skipped, not an error.
    expect(check({ kind: "state-unchanged", except: ["other.changed", "nowhere[3].x"] }, post)).toBe(true);
  });

  it("exceptPost drops a new element only after the run, exceptPre a removed one only before it", () => {
    const appended = postWith((state) => {
      state.items.push({ id_: "4", text: "delta", at: "2030-01-04T10:00:00" });
    });
    expect(check({ kind: "state-unchanged", exceptPost: ["items[3]"] }, appended)).toBe(true);
    expect(check({ kind: "state-unchanged", exceptPost: ["items[-1]"] }, appended)).toBe(true);
    // On both sides, `items[3]` would not resolve before the run and the extra element would stay after it.
    expect(check({ kind: "state-unchanged", exceptPre: ["items[3]"] }, appended)).toBe(false);
    const removed = postWith((state) => {
      state.items.splice(1, 1);
    });
    expect(check({ kind: "state-unchanged", exceptPre: ["items[1]"] }, removed)).toBe(true);
    expect(check({ kind: "state-unchanged", exceptPre: ["items[0]"] }, removed)).toBe(false);
    expect(check({ kind: "state-unchanged", exceptPost: ["items[1]"] }, removed)).toBe(false);
  });

  it("several array elements are each resolved on the original (as deleting the highest index first does)", () => {
    const removedTwo = postWith((state) => {
      state.items.splice(1, 2);
    });
    expect(check({ kind: "state-unchanged", exceptPre: ["items[1]", "items[2]"] }, removedTwo)).toBe(true);
    expect(check({ kind: "state-unchanged", exceptPre: ["items[2]", "items[1]"] }, removedTwo)).toBe(true);
    // Removing index 1 and then the new index 1 would remove the original 1 and 3: not what the check says.
    const removedFirstAndLast = postWith((state) => {
      state.items.splice(2, 1);
      state.items.splice(0, 1);
    });
    expect(check({ kind: "state-unchanged", exceptPre: ["items[1]", "items[1]"] }, removedFirstAndLast)).toBe(false);
    expect(check({ kind: "state-unchanged", exceptPre: ["items[0]", "items[2]"] }, removedFirstAndLast)).toBe(true);
  });

  it("field exceptions inside elements, and excepting the whole value on one side only", () => {
    const edited = postWith((state) => {
      state.items[1]!.text = "BETA";
      state.items[1]!.at = "2030-02-02T10:00:00";
    });
    expect(check({ kind: "state-unchanged", except: ["items[1].text"] }, edited)).toBe(false);
    expect(check({ kind: "state-unchanged", except: ["items[1].text", "items[1].at"] }, edited)).toBe(true);
    expect(check({ kind: "state-unchanged", path: "items[1]", except: [""] }, edited)).toBe(true);
    expect(check({ kind: "state-unchanged", path: "items[1]", exceptPre: [""] }, edited)).toBe(false);
    expect(check({ kind: "state-unchanged", path: "missing", except: ["x"] }, edited)).toBe(false);
  });

  it("list-count counts the elements meeting `where` (all without one); a non-list is false", () => {
    const post = postWith(() => undefined);
    const count = (op: string, value: number, where?: Record<string, unknown>) =>
      check({ kind: "list-count", path: "items", op, value, ...(where === undefined ? {} : { where }) }, post);
    expect(count("==", 3)).toBe(true);
    expect(count("==", 2)).toBe(false);
    const hasA = { kind: "state-contains", path: "text", value: "a" };
    expect(count("==", 3, hasA)).toBe(true);
    expect(count("==", 1, { kind: "state-contains", path: "text", value: "mm" })).toBe(true);
    expect(count(">", 0, { kind: "state-equals", path: "id_", value: "9" })).toBe(false);
    expect(check({ kind: "list-count", path: "other", op: ">=", value: 0 }, post)).toBe(false);
    // Scalar elements are the scope themselves.
    expect(
      check(
        { kind: "list-count", path: "tags", where: { kind: "state-contains", path: "", value: "a@X.EXAMPLE", caseInsensitive: true }, op: "==", value: 1 },
        post,
      ),
    ).toBe(true);
  });

  it("state-starts-with: a string prefix, case-insensitively when flagged, from pre when asked, with templates", () => {
    const post = postWith((state) => {
      state.items[0]!.text = "zeta";
    });
    expect(check({ kind: "state-starts-with", path: "items[0].at", value: "2030-01-01T" }, post)).toBe(true);
    expect(check({ kind: "state-starts-with", path: "items[0].at", value: "2030-01-02T" }, post)).toBe(false);
    expect(check({ kind: "state-starts-with", path: "items[0].text", value: "ZE" }, post)).toBe(false);
    expect(check({ kind: "state-starts-with", path: "items[0].text", value: "ZE", caseInsensitive: true }, post)).toBe(true);
    expect(check({ kind: "state-starts-with", path: "items[0].text", value: { $template: "{vector}" }, caseInsensitive: true, from: "pre" }, post)).toBe(true);
    expect(check({ kind: "state-starts-with", path: "other.kept", value: "1" }, post)).toBe(false);
    expect(check({ kind: "state-starts-with", path: "nowhere", value: "" }, post)).toBe(false);
  });
});
