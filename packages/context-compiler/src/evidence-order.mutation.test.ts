// Survivors of `pnpm mutate context-compiler` in evidence.ts's sort (line 32): evidence is
// ordered by priority, then by id, so the request does not depend on the order the caller
// listed it in; items equal in both keep the caller's order.
import { describe, expect, it } from "vitest";
import { CONFIG, inputAt, makeTranscript } from "./__fixtures__/runs.js";
import { compile, estimatedTokenCounter, type CompileConfig, type EvidenceItem } from "./index.js";

const WIDE: CompileConfig = { ...CONFIG, tokenCounter: estimatedTokenCounter(), contextWindow: 1_000_000, maxOutputTokens: 1_000 };
const transcript = makeTranscript(3);
const item = (id: string, priority: number, text = `Evidence ${id}: see docs/${id.slice(4)}.md.`): EvidenceItem => ({ id, kind: "evidence", text, priority });

function compiled(evidence: EvidenceItem[]) {
  const { request, manifest } = compile(inputAt(transcript, 3, { evidence }), WIDE);
  return { request: JSON.stringify(request), ids: manifest.items.filter((entry) => entry.section === "evidence").map((entry) => entry.id) };
}

describe("evidence order", () => {
  const items = [item("doc:c", 5), item("doc:a", 5), item("doc:z", 9), item("doc:e", 5), item("doc:0", 1), item("doc:b", 5), item("doc:d", 5)];
  const expected = ["doc:z", "doc:a", "doc:b", "doc:c", "doc:d", "doc:e", "doc:0"];

  it("is by priority, then by id, whatever order the caller lists it in", () => {
    const reference = compiled(items);
    expect(reference.ids).toEqual(expected);
    // Every rotation of the list and of its reverse: each item first and last at least once.
    const orders = [items, items.slice().reverse()].flatMap((list) => list.map((_, shift) => [...list.slice(shift), ...list.slice(0, shift)]));
    for (const order of orders) {
      const { request, ids } = compiled(order);
      expect(ids, order.map((entry) => entry.id).join(",")).toEqual(expected);
      expect(request).toBe(reference.request);
    }
  });

  it("items with the same priority and id keep the caller's order", () => {
    const first = item("doc:same", 5, "The first note about the release.");
    const second = item("doc:same", 5, "The second note about the release.");
    for (const [one, two] of [
      [first, second],
      [second, first],
    ] as const) {
      const { request } = compiled([item("doc:a", 5), one, item("doc:z", 5), two]);
      expect(request.indexOf(one.text)).toBeGreaterThan(-1);
      expect(request.indexOf(one.text)).toBeLessThan(request.indexOf(two.text));
    }
  });

  it("an item compiled again with another estimate is counted again (evidence.ts's entry cache is keyed by the counter)", () => {
    const shared = item("doc:shared", 5, "Releases are cut from main every Tuesday. ".repeat(20));
    const tokens = (charsPerToken: number) =>
      compile(inputAt(transcript, 3, { evidence: [shared] }), { ...WIDE, tokenCounter: estimatedTokenCounter(charsPerToken) }).manifest.items.find(
        (entry) => entry.id === "doc:shared",
      )!.tokens;
    const two = tokens(2);
    const four = tokens(4);
    expect(two).toBeGreaterThan(four * 1.8);
    expect(tokens(2)).toBe(two);
  });
});
