import type { RunLease } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { linuxProcessTable, ownerCertainlyGone, processOwnerId, type ProcessIdentity, type ProcessTable } from "./owner-identity.js";

// Identities are simulated here (the real namespace and restart cases run under `unshare` in
// tests/run-ownership/src/owner-identity.test.ts).
const SELF: ProcessIdentity = { bootId: "boot-a", pidNamespace: "4026531836", pid: 1, startTime: "5000" };

/** A table whose own identity is `self` and whose other processes are `others` (pid → start time). */
function table(self: ProcessIdentity | undefined, others: Record<number, string | undefined> = {}): ProcessTable {
  return {
    self: () => self,
    startTimeOf: (pid) => (pid in others ? others[pid] : null),
  };
}

const leaseOf = (ownerId: string): RunLease => ({ tenantId: "t", runId: "r", ownerId, token: 1, expiresAt: 0 });
const ownerOf = (identity: ProcessIdentity, host = "host") =>
  leaseOf(`yoke:${host}:${identity.pid}:abcd1234:${identity.bootId}:${identity.pidNamespace}:${identity.startTime}`);

describe("owner identity", () => {
  it("names this process by host, pid, boot id, PID namespace and start time, and never judges itself gone", () => {
    const id = processOwnerId(table(SELF));
    expect(id).toMatch(/^yoke:[^:]+:1:[0-9a-f]{8}:boot-a:4026531836:5000$/);
    expect(ownerCertainlyGone(leaseOf(id), table(SELF))).toBe(false);
    expect(processOwnerId(table(undefined))).toMatch(/^yoke:[^:]+:\d+:[0-9a-f]{8}$/);
  });

  it("knows an owner of this boot and namespace is dead when its pid is free or names a process started at another time", () => {
    const owner = { ...SELF, pid: 4242, startTime: "4000" };
    expect(ownerCertainlyGone(ownerOf(owner), table(SELF))).toBe(true);
    expect(ownerCertainlyGone(ownerOf(owner), table(SELF, { 4242: "4100" }))).toBe(true);
    expect(ownerCertainlyGone(ownerOf(owner), table(SELF, { 4242: "4000" }))).toBe(false);
    // The pid exists but its start time cannot be read: not certain.
    expect(ownerCertainlyGone(ownerOf(owner), table(SELF, { 4242: undefined }))).toBe(false);
  });

  it("knows a predecessor with this process's own pid is dead (a restarted container's PID 1), whatever the host name says", () => {
    expect(ownerCertainlyGone(ownerOf({ ...SELF, startTime: "12" }, "other-name"), table(SELF))).toBe(true);
  });

  it("waits out an owner in another PID namespace or on another boot, even when its pid is free here", () => {
    expect(ownerCertainlyGone(ownerOf({ ...SELF, pid: 4242, pidNamespace: "4026532175" }), table(SELF))).toBe(false);
    expect(ownerCertainlyGone(ownerOf({ ...SELF, pid: 4242, bootId: "boot-b" }), table(SELF))).toBe(false);
    expect(ownerCertainlyGone(ownerOf({ ...SELF, pid: 4242 }), table(undefined))).toBe(false);
  });

  it("waits out owners named another way: the older four-part ids, foreign names, malformed fields", () => {
    for (const ownerId of [
      "yoke:host:4242:abcd1234",
      "worker-7",
      "yoke:host:0:abcd1234:boot-a:4026531836:1",
      "yoke:host:x:abcd1234:boot-a:4026531836:1",
      "yoke:host:4242:abcd1234:boot-a:4026531836:",
      "yoke:host:4242:abcd1234::4026531836:1",
      "yoke:ho:st:4242:abcd1234:boot-a:4026531836:1",
      "other:host:4242:abcd1234:boot-a:4026531836:1",
    ]) {
      expect(ownerCertainlyGone(leaseOf(ownerId), table(SELF)), ownerId).toBe(false);
    }
  });

  it("judges an owner gone only on this boot and namespace, and never one that is this very process (property)", () => {
    const identity = fc.record({
      bootId: fc.constantFrom("boot-a", "boot-b"),
      pidNamespace: fc.constantFrom("1", "2"),
      pid: fc.integer({ min: 1, max: 4 }),
      startTime: fc.constantFrom("10", "20"),
    });
    const others = fc.dictionary(fc.constantFrom("1", "2", "3", "4"), fc.option(fc.constantFrom("10", "20"), { nil: undefined }));
    fc.assert(
      fc.property(identity, identity, others, (self, owner, table0) => {
        const processes = Object.fromEntries(Object.entries(table0).map(([pid, start]) => [Number(pid), start]));
        const gone = ownerCertainlyGone(ownerOf(owner), table(self, processes));
        if (gone) {
          expect(owner.bootId).toBe(self.bootId);
          expect(owner.pidNamespace).toBe(self.pidNamespace);
          expect(owner.pid === self.pid && owner.startTime === self.startTime).toBe(false);
          // Another pid: free here, or held by a process whose start time was read and differs.
          const here = processes[owner.pid];
          if (owner.pid !== self.pid) expect(!(owner.pid in processes) || (here !== undefined && here !== owner.startTime)).toBe(true);
        }
      }),
    );
  });

  it("reads this process's identity from /proc on Linux", () => {
    const self = linuxProcessTable().self();
    if (process.platform !== "linux") return expect(self).toBeUndefined();
    expect(self).toMatchObject({ pid: process.pid, bootId: expect.stringMatching(/^[0-9a-f-]{36}$/), pidNamespace: expect.stringMatching(/^\d+$/) });
    expect(linuxProcessTable().startTimeOf(process.pid)).toBe(self!.startTime);
    expect(linuxProcessTable().startTimeOf(2 ** 22 + 1)).toBeNull();
  });
});
