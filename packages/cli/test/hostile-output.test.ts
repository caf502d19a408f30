// Terminal output cannot be hijacked: a journal whose tenant id, run id, task, tool results,
// tool errors and model text carry escape sequences (clear screen, OSC 52 clipboard write,
// 8-bit CSI, bidi override, forged newlines) is listed, shown, verified, exported and viewed
// without one control character reaching the terminal; --json stays byte-exact; `yoke import`
// refuses such ids. Every command runs through main(), the binary's body.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryJournal } from "@yoke/journal";
import { main } from "../src/main.ts";
import { exportRun } from "../src/transfer/run-export.ts";
import { HOSTILE, HOSTILE_RUN, HOSTILE_TENANT, completedDrafts, hostileJournal } from "./support/hostile.ts";
import { removeJournals } from "./support/journals.ts";

let dir: string;
let file: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yoke-cli-hostile-"));
  file = await hostileJournal(dir);
}, 120_000);
afterAll(() => {
  removeJournals();
  rmSync(dir, { recursive: true, force: true });
});

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}
async function yoke(argv: string[], isTTY = false): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), isTTY, stopSignal: () => Promise.resolve() });
  return { code, stdout, stderr };
}

// Every character escapeTerminal must keep off a terminal, but the newline the CLI lays lines out with.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this test looks for
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

function expectInert(output: Captured, what: string): void {
  for (const [stream, text] of [
    ["stdout", output.stdout],
    // On a TTY, stderr carries the CLI's own progress control (carriage return, erase line): only those.
    ["stderr", output.stderr.replaceAll("\r\u001b[2K", "")],
  ] as const) {
    const found = CONTROL.exec(text);
    expect(found === null ? null : `U+${found[0].charCodeAt(0).toString(16).padStart(4, "0")} at ${found.index}`, `${what} ${stream}`).toBeNull();
    // The forged verdict never starts a line of its own.
    for (const line of text.split("\n")) expect(line.startsWith("chain: ok (33 events, head 000000000000)"), `${what} ${stream}: ${line}`).toBe(false);
  }
}

describe("hostile journal contents on the terminal", { timeout: 120_000 }, () => {
  it("runs, show, show --events, verify: no control character reaches stdout or stderr; the values are shown escaped", async () => {
    const outputs: [string, Captured][] = [
      ["runs", await yoke(["runs", "--journal", file])],
      ["show", await yoke(["show", HOSTILE_RUN, "--journal", file])],
      ["show --events", await yoke(["show", HOSTILE_RUN, "--events", "--journal", file])],
      ["verify", await yoke(["verify", "--journal", file])],
      ["verify <run>", await yoke(["verify", HOSTILE_RUN, "--tenant", HOSTILE_TENANT, "--journal", file], true)],
      ["request", await yoke(["request", HOSTILE_RUN, "1", "--journal", file])],
      ["request (no such turn)", await yoke(["request", HOSTILE_RUN, "9", "--journal", file], true)],
      ["show (no such run)", await yoke(["show", `${HOSTILE_RUN}x`, "--journal", file])],
      ["an unknown command", await yoke([HOSTILE])],
      ["an unknown option", await yoke(["runs", `--${HOSTILE}`])],
    ];
    for (const [what, output] of outputs) expectInert(output, what);
    const [runs, show, , verify] = outputs.map(([, output]) => output);
    expect(runs!.code).toBe(0);
    expect(runs!.stdout).toContain("tenant_\\x1b[2J\\x1b[H\\nchain: ok");
    expect(show!.code).toBe(0);
    expect(show!.stdout).toContain("\\x1b]52;c;cm0gLXJmIH4K\\x07\\x9b2J\\x85\\x7f\\u202egnp.exe\\u2066x\\u2069\\t");
    expect(show!.stdout).toMatch(/^chain: ok \(33 events, head [0-9a-f]{12}\)$/m);
    expect(verify!.code).toBe(0);
    expect(verify!.stdout.split("\n")).toHaveLength(3);
    expect(verify!.stdout).toMatch(/^ok {6}tenant_\\x1b\[2J/);
  });

  it("--json stays byte-exact: the hostile values come back whole from JSON.parse", async () => {
    const runs = await yoke(["runs", "--journal", file, "--json"]);
    const parsed = JSON.parse(runs.stdout) as { runs: { tenantId: string; runId: string; task: string }[] };
    expect(runs.stdout).toBe(`${JSON.stringify(parsed, null, 2)}\n`);
    expect(parsed.runs[0]).toMatchObject({ tenantId: HOSTILE_TENANT, runId: HOSTILE_RUN });
    expect(parsed.runs[0]!.task.endsWith(HOSTILE)).toBe(true);
    const shown = JSON.parse((await yoke(["show", HOSTILE_RUN, "--journal", file, "--json"])).stdout) as { header: { task: string } };
    expect(shown.header.task.endsWith(HOSTILE)).toBe(true);
    const verified = JSON.parse((await yoke(["verify", "--journal", file, "--json"])).stdout) as { runs: { runId: string }[] };
    expect(verified.runs[0]!.runId).toBe(HOSTILE_RUN);
  });

  it("export writes the document exactly; its text summary and the viewer's line are inert", async () => {
    const exported = await yoke(["export", HOSTILE_RUN, "--journal", file]);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.stdout).runId).toBe(HOSTILE_RUN);
    const out = join(dir, "hostile.json");
    const toFile = await yoke(["export", HOSTILE_RUN, "--out", out, "--journal", file]);
    expectInert(toFile, "export --out");
    expect(readFileSync(out, "utf8")).toBe(exported.stdout);
    const viewed = await yoke(["view", HOSTILE_RUN, "--journal", file]);
    expect(viewed.code).toBe(0);
    expectInert(viewed, "view");
  });

  it("import refuses a tenant or run id with control characters (RUN_ID_INVALID, exit 4) and writes nothing", async () => {
    const out = join(dir, "to-import.json");
    expect((await yoke(["export", HOSTILE_RUN, "--out", out, "--journal", file])).code).toBe(0);
    const target = join(dir, "imported.sqlite");
    const refused = await yoke(["import", out, "--journal", target]);
    expectInert(refused, "import");
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/^yoke: RUN_ID_INVALID: /);
    expect(existsSync(target) && (await yoke(["runs", "--journal", target, "--json"])).stdout.includes('"runs": [\n')).toBe(false);
    // One character is enough, in the run id or the tenant id: each C0, C1, DEL and bidi control on its own.
    const drafts = await completedDrafts(false);
    for (const bad of ["\u202e", "\u2067", "\u200f", "\u009b", "\u0085", "\u007f", "\u0000", "\n", "\t"]) {
      for (const scope of [
        { tenantId: "tenant_clean", runId: `run_${bad}x` },
        { tenantId: `tenant_${bad}x`, runId: "run_clean" },
      ]) {
        const memory = createMemoryJournal();
        const { events } = await memory.append(scope, 0, drafts);
        const path = join(dir, "one-bad.json");
        writeFileSync(path, exportRun(events));
        const one = await yoke(["import", path, "--journal", target]);
        expectInert(one, `import ${JSON.stringify(scope)}`);
        expect(one.stderr, JSON.stringify(scope)).toMatch(/^yoke: RUN_ID_INVALID: /);
      }
    }
    // A clean run with hostile text imports: its contents are data, escaped when shown.
    const clean = createMemoryJournal();
    const { events } = await clean.append({ tenantId: "tenant_clean", runId: "run_clean" }, 0, await completedDrafts(true));
    const path = join(dir, "clean.json");
    writeFileSync(path, exportRun(events));
    const imported = await yoke(["import", path, "--journal", target]);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expectInert(await yoke(["show", "run_clean", "--events", "--journal", target]), "show of the imported run");
  });
});
