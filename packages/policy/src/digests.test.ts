import { canonicalJson } from "@yoke/protocol";
import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { actionDigestOf } from "./index.js";

const revision = "a".repeat(64);

describe("actionDigestOf", () => {
  test("is SHA-256 of the canonical JSON of { toolRevision, arguments }", () => {
    const expected = createHash("sha256")
      .update(canonicalJson({ toolRevision: revision, arguments: { to: "x", amount: 1 } }))
      .digest("hex");
    expect(actionDigestOf(revision, { to: "x", amount: 1 })).toBe(expected);
  });

  test("ignores key order, changes with the arguments or the revision", () => {
    const digest = actionDigestOf(revision, { to: "x", amount: 1 });
    expect(actionDigestOf(revision, { amount: 1, to: "x" })).toBe(digest);
    expect(actionDigestOf(revision, { amount: 2, to: "x" })).not.toBe(digest);
    expect(actionDigestOf("b".repeat(64), { amount: 1, to: "x" })).not.toBe(digest);
  });
});
