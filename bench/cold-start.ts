// Cold start, in this fresh process: importing @yoke/runtime, @yoke/journal and @yoke/testkit,
// then a harness's first turn (a scripted model that answers once, the memory journal). Prints
// JSON: ms from process start to the imports, the imports, the first turn, and peak RSS.
// usage: node cold-start.ts <estimated|exact|eager>
//   estimated  the scripted model's id names no tokenizer: the estimate counts, js-tiktoken never loads
//   exact      the model is gpt-4o: the exact tokenizer loads on the first count, inside the first turn
//   eager      estimated, plus the o200k_base tokenizer loaded at import (what every start paid
//              when the tokenizer loaded eagerly): the baseline the lazy load is measured against
const mode = process.argv[2] ?? "estimated";
const processStart = performance.now();
const [{ createMemoryJournal }, { createHarness }, { createScriptedModel, say }] = await Promise.all([
  import("@yoke/journal"),
  import("@yoke/runtime"),
  import("@yoke/testkit"),
]);
if (mode === "eager") {
  const { tiktokenCounter } = await import("@yoke/context-compiler");
  tiktokenCounter("o200k_base").count("warm the encoder");
}
const imported = performance.now();
const model = createScriptedModel([say("done")], mode === "exact" ? { modelId: "gpt-4o" } : {});
const harness = createHarness({ journal: createMemoryJournal(), provider: model, tools: [], tenantId: "tenant_bench" });
const result = await harness.start("Say done.");
const firstTurn = performance.now();
if (result.outcome?.status !== "completed") throw new Error(`the one-turn run ended ${JSON.stringify(result.outcome)}`);
console.log(
  JSON.stringify({
    mode,
    nodeStartMs: processStart,
    importMs: imported - processStart,
    firstTurnMs: firstTurn - imported,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  }),
);
