// Prints where a turn goes in the runtime's production sources (packages/runtime/src, tests
// excluded): the call sites of the append operations, the files that take the run's context,
// how many files reach into its side channels, and the largest files. A text count, so that
// the figures before and after a reshaping of the loop are taken the same way.
// Usage: node scripts/turn-map.ts [--json] [--src <dir>]   (--src: another checkout's packages/runtime/src)
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..");
const at = process.argv.indexOf("--src");
const src = at === -1 ? join(root, "packages/runtime/src") : process.argv[at + 1]!;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__fixtures__" ? [] : sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const files = sources(src).map((path) => ({ path: relative(src, path), text: readFileSync(path, "utf8") }));

/** Sites where `pattern` occurs (a line may hold more than one), and the files that hold one. */
function sites(pattern: RegExp): { sites: number; files: number } {
  let count = 0;
  let holding = 0;
  for (const { text } of files) {
    const found = text.match(new RegExp(pattern.source, "g"))?.length ?? 0;
    count += found;
    if (found > 0) holding++;
  }
  return { sites: count, files: holding };
}

const figures = {
  // Calls of the free functions, not declarations nor methods: `function commit(` and `turn.commit(` are left out.
  commitCalls: sites(/(?<!function |async |[.\w])commit\(/),
  previewCalls: sites(/(?<!function |[.\w])preview\(/),
  // Where a turn transaction is opened (its one-shot forms included), and its operations.
  turnOpens: sites(/\bTurn\.(?:open|failureAt)\(|(?<!function )\bcommitTurn\(|(?<!function )\bcommitWithNextTurn\(/),
  turnOperations: sites(/\bturn\.(?:commit|add|afterCommit|compiled)\(|\baddNextTurn\(turn\)/),
  filesTakingContext: files.filter(({ text }) => /\bcontext: RunContext\b/.test(text)).length,
  budgetCalls: sites(/\bcontext\.budget\./),
  signalAborted: sites(/\bcontext\.signal\?\.aborted/),
  sideChannels: sites(/\bcontext\.(?:dispatchable|revisions|facts|inbox)\b|\bcompiled\.staged\b/),
  foldAheadMentions: sites(/\bFoldAhead\b/),
  pairingThrows: sites(/a commit must begin with the drafts its preview folded/),
  largest: files
    .map(({ path, text }) => ({ path, lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0) }))
    .sort((a, b) => b.lines - a.lines)
    .slice(0, 8),
  over400: files.filter(({ text }) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0) > 400).map(({ path }) => path),
};

if (process.argv.includes("--json")) console.log(JSON.stringify(figures));
else {
  for (const [name, value] of Object.entries(figures)) {
    if (name === "largest") {
      console.log("largest files:");
      for (const { path, lines } of figures.largest) console.log(`  ${String(lines).padStart(4)}  ${path}`);
    } else console.log(`${name}: ${JSON.stringify(value)}`);
  }
}
