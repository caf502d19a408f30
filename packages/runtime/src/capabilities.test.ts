// `capabilities: { broker }`: each dispatched attempt gets its own capability (tenant, the
// tool's resource and verb, the action, an expiry on the injected clock), revoked when the
// attempt settles; a result carries the backend's receipt, and the token never reaches the
// journal file, even when a careless tool echoes it.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCapabilityBroker } from "@yoke/policy/capabilities";
import { YokeError, sequentialIdSource, steppingClock, type Capability, type CapabilityReceipt } from "@yoke/protocol";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";
import { createHarness } from "./harness.js";

function setup() {
  const clock = steppingClock(1_000, 0);
  const broker = createCapabilityBroker({ key: "capability-test-key-0123456789abcdef", clock, ids: sequentialIdSource() });
  const seen: { capability: Capability | undefined; actionId: string; receipt?: CapabilityReceipt }[] = [];
  // The payments backend: it holds the broker and accepts a capability, never a password.
  const transfer = defineTool({
    name: "transfer",
    description: "Sends money from an account.",
    input: z.object({ account: z.string(), amount: z.number() }),
    sideEffect: "idempotent",
    policy: ({ account }) => ({ verb: "payments.send", resource: `account:${account}` }),
    execute: async ({ account }, context) => {
      const token = context.capability?.token ?? "";
      const check = broker.verify(token, { tenantId: "acme", resource: `account:${account}`, verb: "payments.send", actionId: context.actionId });
      if (!check.ok) throw new YokeError("TOOL_FAILED", check.code);
      seen.push({ capability: context.capability, actionId: context.actionId, receipt: check.receipt });
      // A careless tool that echoes its credential: the harness cuts it out.
      return { content: `sent with ${token}`, output: { token, tokenBase64: Buffer.from(token).toString("base64") }, receipt: { ...check.receipt, token } };
    },
  });
  const lookup = defineTool({
    name: "lookup",
    description: "Looks up a name.",
    input: z.object({ name: z.string() }),
    sideEffect: "none",
    execute: async ({ name }, context) => {
      seen.push({ capability: context.capability, actionId: context.actionId });
      return `found ${name}`;
    },
  });
  return { clock, broker, seen, transfer, lookup };
}

describe("capabilities", () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "yoke-capabilities-"));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("gives each attempt a capability scoped to tenant, the tool's resource and verb, the action and now + ttl; revokes it when the attempt settles", async () => {
    const { broker, seen, transfer, lookup } = setup();
    const { harness } = rig(
      [
        callTools([
          { name: "transfer", args: { account: "42", amount: 10 } },
          { name: "lookup", args: { name: "bob" } },
        ]),
        say("done"),
      ],
      { tools: [transfer, lookup], tenantId: "acme", capabilities: { broker, ttlMs: 5_000 } },
    );
    const { outcome } = await harness.start("Pay 10 from account 42, and look up bob.");
    expect(outcome?.status).toBe("completed");
    const [paid, looked] = seen as [(typeof seen)[number], (typeof seen)[number]];
    expect(paid.capability?.scope).toEqual({ tenantId: "acme", resource: "account:42", verbs: ["payments.send"], actionId: paid.actionId, expiresAt: 6_000 });
    // No policy facts: the defaults `tool:<name>` and the tool's name.
    expect(looked.capability?.scope).toEqual({ tenantId: "acme", resource: "tool:lookup", verbs: ["lookup"], actionId: looked.actionId, expiresAt: 6_000 });
    expect(paid.capability?.id).not.toBe(looked.capability?.id);
    // Settled: both are revoked, although neither has expired.
    const use = { tenantId: "acme", resource: "account:42", verb: "payments.send", actionId: paid.actionId };
    expect(broker.verify(paid.capability!.token, use)).toMatchObject({ ok: false, code: "CAPABILITY_REVOKED" });
    expect(broker.verify(looked.capability!.token, { ...use, resource: "tool:lookup", verb: "lookup", actionId: looked.actionId })).toMatchObject({
      ok: false,
      code: "CAPABILITY_REVOKED",
    });
  });

  it("journals the receipt, never the token: 0 occurrences in the SQLite journal file even when the tool echoes it", async () => {
    const { clock, broker, seen, transfer } = setup();
    const filename = join(directory, "yoke.db");
    const harness = createHarness({
      journal: filename,
      provider: createScriptedModel([callTools([{ name: "transfer", args: { account: "42", amount: 10 } }]), say("done")]),
      tools: [transfer],
      tenantId: "acme",
      clock,
      ids: sequentialIdSource(),
      capabilities: { broker },
    });
    await harness.start("Pay 10 from account 42.", { runId: "run_1" });
    const committed = [];
    for await (const event of harness.events("run_1")) if (event.type === "action.committed") committed.push(event);
    await harness.close();
    const token = seen[0]!.capability!.token;
    const bytes = Buffer.concat([filename, `${filename}-wal`].filter(existsSync).map((path) => readFileSync(path))).toString("latin1");
    expect(bytes.split(token).length - 1).toBe(0);
    expect(bytes.split(Buffer.from(token).toString("base64").slice(8, 40)).length - 1).toBe(0);
    expect(bytes).toContain(seen[0]!.receipt!.mac);
    // The receipt the backend signed is the action's receipt, and it still verifies.
    const receipt = committed[0]!.data.receipt as Record<string, unknown>;
    expect(receipt).toEqual({ ...seen[0]!.receipt, token: "[REDACTED]" });
    const { token: _cut, ...signed } = receipt;
    expect(broker.verifyReceipt(signed as CapabilityReceipt)).toBe(true);
  });

  it("gives no capability without the option, and refuses a broker that is not CapabilityBrokerV1", async () => {
    const { seen, lookup } = setup();
    const { harness } = rig([callTools([{ name: "lookup", args: { name: "bob" } }]), say("done")], { tools: [lookup] });
    await harness.start("Look up bob.");
    expect(seen[0]!.capability).toBeUndefined();
    expect(() => createHarness({ provider: createScriptedModel([]), capabilities: { broker: {} as never } })).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID" }),
    );
  });
});
