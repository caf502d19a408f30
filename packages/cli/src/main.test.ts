import { describe, expect, it } from "vitest";
import { main } from "./main.js";

describe("yoke", () => {
  it("prints usage for --help and exits 0", async () => {
    let out = "";
    const code = await main(["--help"], { stdout: (text) => (out += text), stderr: () => {}, isTTY: false });
    expect(code).toBe(0);
    expect(out).toMatch(/^usage: yoke/);
  });
});
