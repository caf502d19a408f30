import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type VerifierV1, YokeError } from "@yoke/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { admitted, committed, turnStarted } from "./__fixtures__/actions.js";
import { inputOf, runStarted } from "./__fixtures__/inputs.js";
import { commandVerifier } from "./command-verifier.js";
import { all, any, sequence } from "./compose.js";
import { describeVerifier, verifierContractTests } from "./contract.js";
import { defineVerifier } from "./define-verifier.js";
import { evidenceVerifier } from "./evidence-verifier.js";
import { fromCheck } from "./from-check.js";
import { invariantVerifier } from "./invariant-verifier.js";
import { schemaVerifier } from "./schema-verifier.js";

const workspace = realpathSync(mkdtempSync(join(tmpdir(), "yoke-verifier-contract-")));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

const drafts = [runStarted, turnStarted, admitted("action_1"), committed("action_1", { id: "r1" })];
const input = () => inputOf({ drafts, text: '{"done": true} [action:action_1]', output: { done: true }, workspace });
const node = process.execPath;

describeVerifier(
  "commandVerifier, passing",
  { create: () => commandVerifier({ id: "ok", command: node, args: ["-e", "console.log('ok')"], timeoutMs: 60_000 }), input },
  { describe, it },
);
describeVerifier(
  "commandVerifier, failing",
  { create: () => commandVerifier({ id: "fails", command: node, args: ["-e", "console.error('no'); process.exit(2)"], timeoutMs: 60_000 }), input },
  { describe, it },
);
describeVerifier(
  "commandVerifier, a hang the abort must kill",
  {
    create: () => commandVerifier({ id: "hangs", command: node, args: ["-e", "setInterval(() => {}, 1e6)"], timeoutMs: 60_000 }),
    input: () => ({ ...input() }),
  },
  // The "same verdict" and "verdict" tests need an answer: this one only answers by abort or timeout.
  { describe, it: (name, body) => (/same verdict|naming its own id|even on a run/.test(name) ? it.skip(name, body) : it(name, body)) },
);
describeVerifier(
  "invariantVerifier",
  {
    create: () =>
      invariantVerifier({
        id: "inv",
        description: "committed something",
        check: (_state, events) => events.some((event) => event.type === "action.committed"),
      }),
    input,
  },
  { describe, it },
);
describeVerifier("evidenceVerifier", { create: () => evidenceVerifier({ id: "evidence" }), input }, { describe, it });
describeVerifier("schemaVerifier", { create: () => schemaVerifier({ id: "shape", schema: z.object({ done: z.literal(true) }) }), input }, { describe, it });
describeVerifier("fromCheck", { create: () => fromCheck("check", ({ response }) => response.stopReason === "end_turn"), input }, { describe, it });
describeVerifier(
  "all / any / sequence",
  {
    create: () =>
      all("gate", [
        sequence("inner", [schemaVerifier({ id: "shape", schema: z.object({ done: z.literal(true) }) }), evidenceVerifier({ id: "evidence" })]),
        any("either", [fromCheck("no", () => false), commandVerifier({ id: "ok", command: node, args: ["-e", ""], timeoutMs: 60_000 })]),
      ]),
    input,
  },
  { describe, it },
);

describe("the contract suite catches a verifier that breaks it", () => {
  const failures = async (verifier: VerifierV1): Promise<string[]> => {
    const failed: string[] = [];
    for (const test of verifierContractTests({ create: () => verifier, input })) {
      try {
        await test.run();
      } catch (error) {
        expect(YokeError.hasCode(error, "TESTKIT_EXPECTATION_FAILED")).toBe(true);
        failed.push(test.title);
      }
    }
    return failed;
  };
  const base = { specificationVersion: "v1" as const, id: "bad", kind: "custom", replaySafe: true };

  it("a verdict naming another verifier", async () => {
    expect(await failures({ ...base, verify: async () => ({ verifierId: "other", kind: "custom", passed: true }) })).toContain(
      "returns a verdict VerifierVerdictSchema accepts, naming its own id and kind",
    );
  });

  it("a verifier that ignores an aborted signal", async () => {
    expect(await failures({ ...base, verify: async () => ({ verifierId: "bad", kind: "custom", passed: true }) })).toEqual([
      "rejects with YokeError CANCELLED when the signal is already aborted",
    ]);
  });

  it("a verifier that answers the same input differently", async () => {
    let calls = 0;
    const flaky = defineVerifier({ id: "bad", kind: "custom", replaySafe: true, verify: async () => ({ passed: (calls += 1) % 2 === 0 }) });
    expect(await failures(flaky)).toContain("gives the same verdict for the same input");
  });

  it("a verifier that rejects with a plain Error", async () => {
    const throwing: VerifierV1 = {
      ...base,
      verify: async (verifierInput) => {
        if (verifierInput.signal.aborted) throw new YokeError("CANCELLED", "stop");
        if (verifierInput.answer.text === "") throw new TypeError("cannot read the answer");
        return { verifierId: "bad", kind: "custom", passed: true };
      },
    };
    expect(await failures(throwing)).toEqual(["never rejects with anything but a YokeError, even on a run with no events, an empty answer and no workspace"]);
  });

  it("a malformed shape: no version, an empty kind, a fractional reserve", async () => {
    expect(
      await failures({
        ...base,
        specificationVersion: "v0" as never,
        kind: "",
        reserve: { wall_time: 0.5 },
        verify: async () => ({ verifierId: "bad", kind: "", passed: true }),
      }),
    ).toContain("is a VerifierV1: version v1, a non-empty id and kind, a boolean replaySafe, a reserve of integer amounts");
  });
});
