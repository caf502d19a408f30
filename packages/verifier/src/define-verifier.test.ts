import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { abortedSignal, inputOf } from "./__fixtures__/inputs.js";
import { defineVerifier } from "./define-verifier.js";

describe("defineVerifier", () => {
  it("stamps the verdict with the verifier's id and kind", async () => {
    const verifier = defineVerifier({ id: "mine", kind: "custom", replaySafe: true, verify: async () => ({ passed: true }) });
    expect(await verifier.verify(inputOf())).toEqual({ verifierId: "mine", kind: "custom", passed: true });
  });

  it("an aborted signal rejects with CANCELLED before the check runs", async () => {
    let ran = false;
    const verifier = defineVerifier({
      id: "mine",
      kind: "custom",
      replaySafe: true,
      verify: async () => {
        ran = true;
        return { passed: true };
      },
    });
    await expect(verifier.verify(inputOf({ signal: abortedSignal() }))).rejects.toMatchObject({ code: "CANCELLED", details: { verifierId: "mine" } });
    expect(ran).toBe(false);
  });

  it("a non-YokeError thrown by the check becomes VERIFIER_FAILED with it as the cause; a YokeError passes through", async () => {
    const bug = new TypeError("x is undefined");
    const error = await defineVerifier({ id: "m", kind: "k", replaySafe: true, verify: () => Promise.reject(bug) })
      .verify(inputOf())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "VERIFIER_FAILED", cause: bug });
    const own = new YokeError("TOOL_FAILED", "mine");
    await expect(defineVerifier({ id: "m", kind: "k", replaySafe: true, verify: () => Promise.reject(own) }).verify(inputOf())).rejects.toBe(own);
  });

  it("a malformed verdict is VERIFIER_FAILED", async () => {
    const verifier = defineVerifier({ id: "m", kind: "k", replaySafe: true, verify: async () => ({ passed: "yes" }) as never });
    await expect(verifier.verify(inputOf())).rejects.toMatchObject({ code: "VERIFIER_FAILED" });
  });

  it("rejects an empty id or kind and a malformed reserve with CONFIG_INVALID", () => {
    const verify = async () => ({ passed: true });
    for (const bad of [{ id: "" }, { kind: "" }, { reserve: { wall_time: -1 } }, { reserve: { wall_time: 1.5 } }, { reserve: { dollars: 1 } as never }]) {
      expect(() => defineVerifier({ id: "m", kind: "k", replaySafe: true, verify, ...bad })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    }
  });
});
