import { sequentialIdSource, steppingClock, YokeError, type CapabilityUse } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createCapabilityBroker } from "../capabilities.js";

const KEY = "k".repeat(32);

function setup(resource = "file:/reports/*") {
  const broker = createCapabilityBroker({ key: KEY, clock: steppingClock(1_000), ids: sequentialIdSource() });
  const root = broker.mint({ tenantId: "acme", resource, verbs: ["read"], actionId: null, expiresAt: 61_000 });
  return { broker, root };
}

const use = (resource: string): CapabilityUse => ({ tenantId: "acme", resource, verb: "read", actionId: "action_1" });

const ESCAPES = [
  "file:/reports/../secrets/prod.env",
  "file:/reports/./../secrets/prod.env",
  "file:/reports/q3/../../secrets/prod.env",
  "file:/reports/%2e%2e/secrets/prod.env",
  "file:/reports/%2E%2E%2Fsecrets/prod.env",
  "file:/reports/..%2fsecrets/prod.env",
  "file:/reports/%252e%252e/secrets/prod.env",
  "file:/reports\\..\\secrets\\prod.env",
  "file:/reports/../../../../etc/passwd",
  "file:/reports/%zz/q3.pdf",
  "file:/reports/q3.pdf%",
  "file:/reports/q3.pdf\u0000.txt",
];

describe("capability resources are canonicalized before every scope check (issue 33, item 8)", () => {
  it("a capability for file:/reports/* does not verify for a path that leaves /reports by dot segments, encodings or separators", () => {
    const { broker, root } = setup();
    for (const resource of ESCAPES) {
      const check = broker.verify(root.token, use(resource));
      expect({ resource, ok: check.ok }).toEqual({ resource, ok: false });
      if (!check.ok) expect(["CAPABILITY_SCOPE", "CAPABILITY_RESOURCE_INVALID"]).toContain(check.code);
    }
  });

  it("refuses, with CAPABILITY_RESOURCE_INVALID, a use whose resource does not canonicalize", () => {
    const { broker, root } = setup();
    for (const resource of ["file:/../secrets", "file:/reports/%zz", "file:/reports/%252e%252e/x", "file:/reports\\x", "file:/reports/a\u0000"]) {
      const check = broker.verify(root.token, use(resource));
      expect(check.ok ? "ok" : check.code).toBe("CAPABILITY_RESOURCE_INVALID");
    }
  });

  it("still verifies what stays inside: dot segments that end inside, duplicate separators, percent-encoded letters", () => {
    const { broker, root } = setup();
    for (const resource of [
      "file:/reports/q3.pdf",
      "file:/reports/2026/../q3.pdf",
      "file:/reports//q3.pdf",
      "file:/reports/./q3.pdf",
      "file:/reports/q%33.pdf",
    ]) {
      const check = broker.verify(root.token, use(resource));
      expect({ resource, ok: check.ok }).toEqual({ resource, ok: true });
    }
  });

  it("an attenuation cannot name a resource outside its parent through a path trick", () => {
    const { broker, root } = setup();
    for (const resource of ["file:/reports/../secrets/*", "file:/reports/%2e%2e/secrets/prod.env", "file:/reports/..%2F*"]) {
      let error: unknown;
      try {
        broker.attenuate(root, { resource, actionId: "action_1" });
      } catch (caught) {
        error = caught;
      }
      expect(YokeError.isInstance(error) ? error.code : "no error").toMatch(/^CAPABILITY_(ESCALATION|RESOURCE_INVALID)$/);
    }
  });

  it("a mint whose resource does not canonicalize is refused with CAPABILITY_RESOURCE_INVALID", () => {
    const broker = createCapabilityBroker({ key: KEY, clock: steppingClock(1_000), ids: sequentialIdSource() });
    expect(() => broker.mint({ tenantId: "acme", resource: "file:/../*", verbs: ["read"], actionId: null, expiresAt: 61_000 })).toThrow(
      expect.objectContaining({ code: "CAPABILITY_RESOURCE_INVALID" }),
    );
  });

  it("URL resources: host case and trailing dots are canonical; user info and an escaping path are refused", () => {
    const { broker, root } = setup("url:https://reports.example.com/q3/*");
    expect(broker.verify(root.token, use("url:https://REPORTS.example.com./q3/a.pdf")).ok).toBe(true);
    expect(broker.verify(root.token, use("url:https://reports.example.com/q3/../admin")).ok).toBe(false);
    expect(broker.verify(root.token, use("url:https://reports.example.com/q3/%2e%2e/admin")).ok).toBe(false);
    const userInfo = broker.verify(root.token, use("url:https://reports.example.com@evil.example/q3/a"));
    expect(userInfo.ok ? "ok" : userInfo.code).not.toBe("ok");
  });

  it("property: a use verifies only when its resource, resolved as a path, stays under the root's prefix", () => {
    const segment = fc.constantFrom("reports", "secrets", "..", ".", "", "%2e%2e", "%2E", "q3.pdf", "a%2Fb", "..%2f");
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
        const { broker, root } = setup();
        const resource = `file:/reports/${segments.join("/")}`;
        const check = broker.verify(root.token, use(resource));
        // A reference resolution of the decoded path, independent of the broker's code.
        const decoded = `/reports/${segments.join("/")}`.replace(/%2e/gi, ".").replace(/%2f/gi, "/");
        const stack: string[] = [];
        let escaped = false;
        for (const part of decoded.split("/")) {
          if (part === "" || part === ".") continue;
          if (part === "..") {
            if (stack.length === 0) escaped = true;
            stack.pop();
          } else stack.push(part);
        }
        const inside = !escaped && stack[0] === "reports" && stack.length >= 1;
        if (!inside) expect(check.ok).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });
});
