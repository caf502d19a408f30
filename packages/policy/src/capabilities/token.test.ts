import { canonicalJson } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { decodeToken, encodeToken, keyOf, type BrokerKey } from "./token.js";

describe("token encoding", () => {
  it("writes the payload as canonical JSON (the bytes canonicalJson gives)", () => {
    const key = keyOf("k".repeat(32), "k1") as BrokerKey;
    const payload = {
      id: "capability_2",
      parentId: "capability_1",
      lineage: ["capability_1"],
      scope: { tenantId: 'a"b', resource: "file:/é/*", verbs: ["read", "write"], actionId: null, expiresAt: 10 },
      keyId: "k1",
    };
    const token = encodeToken(key, payload);
    const body = Buffer.from(token.split(".")[1]!, "base64url").toString("utf8");
    expect(body).toBe(canonicalJson(payload));
    expect(decodeToken(key, token)).toEqual(payload);
  });
});
