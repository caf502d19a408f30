// pnpm bench: every figure is a median over interleaved rounds in one run, next to its
// baseline measured in the same run. Each benchmark runs in a fresh Node process.
import { fmt, printTable, runChild } from "./stats.ts";

interface AppendResult { synchronous: string; eventBytes: number; yoke: number; raw: number; ratio: number }
interface TurnsResult {
  turns: number; synchronous: string; medianTurnUs: number; tailMedianTurnUs: number; meanTurnUs: number;
  peakRssMb: number; journalBytes: number;
}

const quick = process.argv.includes("--quick");
console.log(`Yoke benchmarks — Node ${process.versions.node}, ${new Date().toISOString().slice(0, 10)}${quick ? " (quick)" : ""}`);

const appendRows: string[][] = [];
for (const mode of ["full", "normal"]) {
  const result = runChild<AppendResult>("journal-append.ts", [mode, quick ? "100" : mode === "full" ? "400" : "2000", quick ? "3" : "7"]);
  appendRows.push([
    `synchronous=${mode.toUpperCase()}`,
    fmt(result.yoke),
    fmt(result.raw),
    fmt(result.ratio, 2),
  ]);
}
printTable(
  "Journal append, SQLite WAL, one transaction per turn of 5 events of ~300 bytes (events/s, median of rounds)",
  ["durability", "@yoke/journal", "raw better-sqlite3", "ratio"],
  appendRows,
);

const turnRows: string[][] = [];
for (const mode of ["full", "normal"]) {
  for (const turns of [50, 200, 800]) {
    const result = runChild<TurnsResult>("harness-turns.ts", [String(turns), mode]);
    turnRows.push([
      `${mode.toUpperCase()}`,
      String(turns),
      fmt(result.medianTurnUs),
      fmt(result.tailMedianTurnUs),
      fmt(result.meanTurnUs),
      fmt(result.peakRssMb, 1),
      fmt(result.journalBytes / 1024),
    ]);
  }
}
const flat = (mode: string) => {
  const rows = turnRows.filter((row) => row[0] === mode.toUpperCase());
  return Number(rows.at(-1)![3]!.replace(/,/g, "")) / Number(rows[0]![3]!.replace(/,/g, ""));
};
printTable(
  "Harness cost per turn: scripted model, 2 no-op tools per turn, SQLite journal (µs)",
  ["sync", "turns", "median/turn", "last-50 median", "mean/turn", "peak RSS MB", "journal KiB"],
  turnRows,
);
console.log(
  `\nper-turn cost at 800 turns / at 50 turns (last-50 medians): FULL ${flat("full").toFixed(2)}, NORMAL ${flat("normal").toFixed(2)} (1.00 = flat)`,
);
