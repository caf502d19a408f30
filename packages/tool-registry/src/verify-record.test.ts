// A pinned record proves its whole identity: its origin, trust domain and capabilities are in
// the digest a run pins, so editing any of them (or the digest) after pinning is caught, not
// only an edit of the model-facing spec or the contract.
import { describe, expect, it } from "vitest";
import { readTool } from "./__fixtures__/tools.js";
import { recordOf } from "./digests.js";
import { createToolRegistry, verifyRevisionRecord } from "./registry.js";

describe("verifyRevisionRecord checks the identity digest", () => {
  const registry = createToolRegistry({ source: "app" });
  registry.register(readTool(), { trustDomain: "acme", capabilities: ["fs.read"] });
  const record = recordOf(registry.live("read")!);

  it.each([
    ["the origin", { origin: { kind: "mcp-http" as const, url: "http://127.0.0.1:1/attacker" } }],
    ["the trust domain", { trustDomain: "first-party" }],
    ["the capabilities", { capabilities: ["fs.read", "fs.write"] }],
    ["the digest itself", { digest: "0".repeat(64) }],
  ])("an edit of %s after pinning is refused", (_what, edit) => {
    expect(verifyRevisionRecord(record)).toBe(true);
    expect(verifyRevisionRecord({ ...record, ...edit })).toBe(false);
  });
});
