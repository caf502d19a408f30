import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { abortedSignal, inputOf } from "./__fixtures__/inputs.js";
import { all, any, sequence } from "./compose.js";
import { defineVerifier } from "./define-verifier.js";

/** A verifier that records that it ran and answers as told. */
function fixed(
  id: string,
  passed: boolean,
  extra: { retry?: boolean; escalate?: boolean; replaySafe?: boolean; reserve?: { wall_time?: number; tool_ops?: number } } = {},
  ran: string[] = [],
) {
  return defineVerifier({
    id,
    kind: "fixed",
    replaySafe: extra.replaySafe ?? true,
    ...(extra.reserve === undefined ? {} : { reserve: extra.reserve }),
    async verify() {
      ran.push(id);
      return passed
        ? { passed: true }
        : {
            passed: false,
            reason: `${id} says no`,
            ...(extra.retry === undefined ? {} : { retry: extra.retry }),
            ...(extra.escalate === undefined ? {} : { escalate: extra.escalate }),
          };
    },
  });
}

describe("all", () => {
  it("runs every member in order, even after a failure, and fails naming each failing member", async () => {
    const ran: string[] = [];
    const verdict = await all("gate", [fixed("a", false, {}, ran), fixed("b", true, {}, ran), fixed("c", false, {}, ran)]).verify(inputOf());
    expect(ran).toEqual(["a", "b", "c"]);
    expect(verdict).toMatchObject({ verifierId: "gate", kind: "all", passed: false, retry: true });
    expect(verdict.children!.map((child) => [child.verifierId, child.passed])).toEqual([
      ["a", false],
      ["b", true],
      ["c", false],
    ]);
    expect(verdict.reason).toBe("a: a says no\nc: c says no");
  });

  it("passes when every member passes; retry false when a failing member says the model cannot fix it; escalate when one asks", async () => {
    expect((await all("gate", [fixed("a", true), fixed("b", true)]).verify(inputOf())).passed).toBe(true);
    expect(await all("gate", [fixed("a", false), fixed("b", false, { retry: false, escalate: true })]).verify(inputOf())).toMatchObject({
      retry: false,
      escalate: true,
    });
  });
});

describe("sequence", () => {
  it("stops at the first failure: later members do not run", async () => {
    const ran: string[] = [];
    const verdict = await sequence("steps", [fixed("a", true, {}, ran), fixed("b", false, {}, ran), fixed("c", true, {}, ran)]).verify(inputOf());
    expect(ran).toEqual(["a", "b"]);
    expect(verdict).toMatchObject({ kind: "sequence", passed: false, reason: "b: b says no" });
    expect(verdict.children!.map((child) => child.verifierId)).toEqual(["a", "b"]);
  });
});

describe("any", () => {
  it("stops at the first pass", async () => {
    const ran: string[] = [];
    const verdict = await any("either", [fixed("a", false, {}, ran), fixed("b", true, {}, ran), fixed("c", true, {}, ran)]).verify(inputOf());
    expect(ran).toEqual(["a", "b"]);
    expect(verdict).toMatchObject({ kind: "any", passed: true });
    expect(verdict.children).toHaveLength(2);
  });

  it("fails when none passes; retry false only when every member says so", async () => {
    const none = await any("either", [fixed("a", false, { retry: false }), fixed("b", false)]).verify(inputOf());
    expect(none).toMatchObject({ passed: false, retry: true });
    expect(none.reason).toContain('none of "a", "b" passed');
    expect(await any("either", [fixed("a", false, { retry: false }), fixed("b", false, { retry: false })]).verify(inputOf())).toMatchObject({ retry: false });
  });
});

describe("composition data", () => {
  it("is replay-safe only when every member is; reserves the sum of the members'", () => {
    const gate = all("gate", [
      fixed("a", true, { reserve: { wall_time: 100 } }),
      fixed("b", true, { reserve: { wall_time: 50, tool_ops: 1 } }),
      fixed("c", true),
    ]);
    expect(gate).toMatchObject({ replaySafe: true, reserve: { wall_time: 150, tool_ops: 1 } });
    expect(sequence("s", [fixed("a", true), fixed("b", true, { replaySafe: false })]).replaySafe).toBe(false);
    expect(any("n", [fixed("a", true)]).reserve).toBeUndefined();
  });

  it("nests: a composition's children carry their own children", async () => {
    const verdict = await all("outer", [sequence("inner", [fixed("a", true), fixed("b", false)]), fixed("c", true)]).verify(inputOf());
    expect(verdict.children![0]).toMatchObject({ verifierId: "inner", passed: false, children: [{ verifierId: "a" }, { verifierId: "b" }] });
  });

  it("rejects an empty list and duplicate ids with CONFIG_INVALID", () => {
    expect(() => all("gate", [])).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => all("gate", [fixed("a", true), fixed("a", false)])).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", details: { verifierId: "gate", duplicate: "a" } }),
    );
  });

  it("an aborted signal stops it before the next member: CANCELLED", async () => {
    const ran: string[] = [];
    const controller = new AbortController();
    const aborting = defineVerifier({
      id: "aborts",
      kind: "fixed",
      replaySafe: true,
      async verify() {
        controller.abort(new Error("stop"));
        return { passed: true };
      },
    });
    const error = await all("gate", [aborting, fixed("later", true, {}, ran)])
      .verify(inputOf({ signal: controller.signal }))
      .catch((caught: unknown) => caught);
    expect(YokeError.hasCode(error, "CANCELLED")).toBe(true);
    expect(ran).toEqual([]);
    await expect(all("gate", [fixed("a", true)]).verify(inputOf({ signal: abortedSignal() }))).rejects.toMatchObject({ code: "CANCELLED" });
  });

  it("a member that rejects rejects the composition with its error", async () => {
    const broken = defineVerifier({
      id: "broken",
      kind: "fixed",
      replaySafe: true,
      async verify() {
        throw new TypeError("bug");
      },
    });
    await expect(sequence("s", [fixed("a", true), broken]).verify(inputOf())).rejects.toMatchObject({
      code: "VERIFIER_FAILED",
      details: { verifierId: "broken" },
    });
  });
});
