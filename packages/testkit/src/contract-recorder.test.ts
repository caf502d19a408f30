import { describe as vitestDescribe, expect, it as vitestIt } from "vitest";
import { afterEach, beforeEach, describe, it, recordContractTests } from "./contract-recorder.js";

/** A contract registered the way the store contracts are, logging what runs. */
function describeToyContract(name: string, log: string[]): void {
  describe(`Toy contract: ${name}`, () => {
    beforeEach(() => void log.push("open"));
    afterEach(() => void log.push("close"));
    it("plain", () => void log.push("plain"));
    describe("group", () => {
      beforeEach(() => void log.push("group before"));
      afterEach(() => void log.push("group after"));
      it("nested", () => void log.push("nested"));
      const rows: [string, number][] = [
        ["one", 1],
        ["two", 2],
      ];
      it.each(rows)("row %s is %d", (label, value) => void log.push(`${label}=${value}`));
    });
  });
}

vitestDescribe("recordContractTests", () => {
  vitestIt("records each test with its describe path below the suite as its title", () => {
    const contract = recordContractTests(() => describeToyContract("toy", []));
    expect(contract.name).toBe("Toy contract: toy");
    expect(contract.tests.map((test) => test.title)).toEqual(["plain", "group > nested", "group > row one is 1", "group > row two is 2"]);
  });

  vitestIt("runs the enclosing beforeEach hooks outside in, the body, then the afterEach hooks inside out", async () => {
    const log: string[] = [];
    const contract = recordContractTests(() => describeToyContract("toy", log));
    expect(log).toEqual([]);
    await contract.tests[0]!.run();
    expect(log.splice(0)).toEqual(["open", "plain", "close"]);
    await contract.tests[3]!.run();
    expect(log).toEqual(["open", "group before", "two=2", "group after", "close"]);
  });

  vitestIt("runs the afterEach hooks when the body fails, and rethrows", async () => {
    const log: string[] = [];
    const contract = recordContractTests(() =>
      describe("Failing", () => {
        afterEach(() => void log.push("close"));
        it("throws", () => {
          throw new Error("boom");
        });
      }),
    );
    await expect(contract.tests[0]!.run()).rejects.toThrow("boom");
    expect(log).toEqual(["close"]);
  });

  vitestIt("refuses to record a suite inside another's registration (CONFIG_INVALID), and records again afterwards", () => {
    let inner: unknown;
    recordContractTests(() => {
      try {
        recordContractTests(() => undefined);
      } catch (error) {
        inner = error;
      }
    });
    expect(inner).toMatchObject({ code: "CONFIG_INVALID" });
    expect(recordContractTests(() => describeToyContract("again", [])).tests.length).toBeGreaterThan(0);
  });
});
