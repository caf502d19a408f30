// The viewer script is written in parts (src/viewer/assets/page-js*.ts) and joined when the
// module loads: the join must give one script, whole, with the bytes the single string gave.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PAGE_JS_CARDS } from "../../src/viewer/assets/page-js-cards.js";
import { PAGE_JS_EVENTS } from "../../src/viewer/assets/page-js-events.js";
import { PAGE_JS_RUN } from "../../src/viewer/assets/page-js-run.js";
import { PAGE_JS_RUNS } from "../../src/viewer/assets/page-js-runs.js";
import { PAGE_JS } from "../../src/viewer/assets/page-js.js";

// The script's digest: first pinned when it was one string, before the split, and since moved
// only by deliberate changes to the script (the last: the release the run is pinned to, and since which event, in the run's facts).
// Update it then, and only then.
const SINGLE_STRING_SHA256 = "26f7db98271f58ccec926360498436a6b46a4a679377b6aaff9d63b756dffc10";

describe("the viewer script's parts", () => {
  it("join into the bytes the single string served", () => {
    expect(PAGE_JS.length).toBe(43_254);
    expect(createHash("sha256").update(PAGE_JS).digest("hex")).toBe(SINGLE_STRING_SHA256);
  });

  it("each hold whole lines, in the order they are joined, and the join compiles", () => {
    const parts = [PAGE_JS_RUNS, PAGE_JS_RUN, PAGE_JS_CARDS, PAGE_JS_EVENTS];
    // The parts follow the opening one after the other, each starting on a line of its own.
    let at = PAGE_JS.indexOf(parts[0]!);
    expect(at).toBeGreaterThan(0);
    for (const part of parts) {
      expect(part.endsWith("\n")).toBe(true);
      expect(PAGE_JS[at - 1]).toBe("\n");
      expect(PAGE_JS.slice(at, at + part.length)).toBe(part);
      at += part.length;
    }
    // Compiled, not run: a part cut mid-statement would not parse.
    expect(() => new Function(PAGE_JS)).not.toThrow();
  });
});
