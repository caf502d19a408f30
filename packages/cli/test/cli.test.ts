// Every command of the REAL binary (node dist/bin.js) on journals written by real runs:
// completed, crashed (SIGKILL) and resumed, tampered, and 10,000 events.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { completedRun, crashedAndResumedRun, crashedRun, largeRun, readEvents, removeJournals, tamperedRun } from "./support/journals.ts";
import { YOKE_BIN, runYoke } from "./support/run-yoke.ts";
import { RUN_ID, TASK, scenarioHarness, seedWorkspace } from "./support/scenario.ts";
import { canonicalJson } from "@yoke/protocol";
import { createSqliteJournal } from "@yoke/journal";
import { anthropicWireBody } from "@yoke/provider-anthropic";
import { openAIWireBody } from "@yoke/provider-openai";
import { reconstructRequest } from "@yoke/runtime";

const openJournal = (file: string) => createSqliteJournal({ filename: file });

const scratch = mkdtempSync(join(tmpdir(), "yoke-cli-test-"));
afterAll(() => {
  removeJournals();
  rmSync(scratch, { recursive: true, force: true });
});

const NO_STACK = /\n\s+at |node:internal|\.ts:\d+:\d+/;

// Each test runs the binary several times; under a loaded machine a start takes seconds.
describe("yoke (the binary)", { timeout: 240_000 }, () => {
  it("--help prints the commands and exit codes; an unknown command is a usage error (exit 2)", async () => {
    const help = await runYoke(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: yoke <command>/);
    for (const command of ["runs", "show", "verify", "request", "resume", "approve", "deny", "export", "import", "view"])
      expect(help.stdout).toContain(`  ${command} `);
    const unknown = await runYoke(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^yoke: unknown command "frobnicate"/);
    const badOption = await runYoke(["runs", "--bogus"]);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toMatch(/^yoke: CONFIG_INVALID: Unknown option '--bogus'/);
    expect(badOption.stderr).not.toMatch(NO_STACK);
  });

  it("errors are the typed code and message on stderr, never a stack: a missing journal is exit 3", async () => {
    const missing = await runYoke(["runs", "--journal", join(scratch, "nope.sqlite")]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toBe(`yoke: JOURNAL_NOT_INITIALIZED: no journal at ${join(scratch, "nope.sqlite")} (pass --journal <file>, or set YOKE_JOURNAL)\n`);
    expect(missing.stdout).toBe("");
    const completed = await completedRun();
    const noRun = await runYoke(["show", "run_missing", "--journal", completed.file]);
    expect(noRun.code).toBe(3);
    expect(noRun.stderr).toBe("yoke: RUN_NOT_FOUND: no run run_missing in the journal\n");
    const postgres = await runYoke(["runs", "--journal", "postgres://localhost/yoke"]);
    expect(postgres.code).toBe(4);
    expect(postgres.stderr).toMatch(/^yoke: CONFIG_INVALID: --journal postgres:\/\/localhost\/yoke: no store for postgres:\/\/ URLs yet/);
    for (const run of [missing, noRun, postgres]) expect(run.stderr).not.toMatch(NO_STACK);
  });

  it("runs: lists the run with tenant, status, outcome, turns; YOKE_JOURNAL selects the store; --json and filters", async () => {
    const completed = await completedRun();
    const text = await runYoke(["runs"], { env: { YOKE_JOURNAL: completed.file } });
    expect(text.code).toBe(0);
    expect(text.stdout.split("\n")[0]).toMatch(/^TENANT\s+RUN\s+STATUS\s+TURNS\s+EVENTS\s+STARTED\s+LAST EVENT\s+TASK$/);
    expect(text.stdout).toMatch(/tenant_cli\s+run_cli\s+finished: verified_success\s+5\s+33\s+2026-01-01T00:00:00\.\d{3}Z/);
    const asJson = await runYoke(["runs", "--journal", completed.file, "--json"]);
    expect(JSON.parse(asJson.stdout).runs).toMatchObject([
      { tenantId: "tenant_cli", runId: "run_cli", status: "finished", outcome: "verified_success", turns: 5, events: 33 },
    ]);
    const filtered = await runYoke(["runs", "--journal", completed.file, "--status", "waiting", "--json"]);
    expect(JSON.parse(filtered.stdout).runs).toEqual([]);
    const otherTenant = await runYoke(["runs", "--journal", completed.file, "--tenant", "tenant_other"]);
    expect(otherTenant.stdout).toMatch(/^no runs in /);
    const badStatus = await runYoke(["runs", "--journal", completed.file, "--status", "done"]);
    expect(badStatus.code).toBe(2);
    const badLimit = await runYoke(["runs", "--journal", completed.file, "--limit", "0"]);
    expect(badLimit.code).toBe(2);
  });

  it("runs: the crashed run is running (3 turns), the tampered one is listed as broken at its seq", async () => {
    const crashed = await runYoke(["runs", "--journal", (await crashedRun()).file]);
    expect(crashed.stdout).toMatch(/tenant_cli\s+run_cli\s+running\s+3\s/);
    const tampered = await tamperedRun();
    const broken = await runYoke(["runs", "--journal", tampered.file]);
    expect(broken.code).toBe(0);
    expect(broken.stdout).toContain(`BROKEN at seq ${tampered.tamperedSeq}`);
  });

  it("show: turns with model calls, manifests, responses, usage and cost, and every action's state strip", async () => {
    const completed = await completedRun();
    const shown = await runYoke(["show", "run_cli", "--journal", completed.file]);
    expect(shown.code).toBe(0);
    const out = shown.stdout;
    expect(out).toMatch(/^run run_cli \(tenant tenant_cli\): verified_success after 5 turns\n/);
    expect(out).toContain("usage: 2520 in, 132 out, cost USD 0.009540");
    expect(out).toMatch(/chain: ok \(33 events, head [0-9a-f]{12}\)/);
    expect(out).toContain("turn 1 (seq 2–7): 350 in, 18 out, cost USD 0.001320");
    expect(out).toMatch(/model call: request [0-9a-f]{12}, 2 messages; manifest 3 included, 0 cut, 0 omitted, 0 compacted/);
    expect(out).toMatch(/tokens \d+ used of 200000 \(output reserve \d+, mandatory \d+, free \d+\); trust: system 2, user 1/);
    expect(out).toContain('response tool_use: read_file({"path":"notes/todo.txt"})');
    expect(out).toMatch(/action read_file action_\w+ \(none\): committed\n\s+proposed#6 → validated#6 → authorized#6 → leased#6 → executing#6 → committed#7/);
    expect(out).toContain("rejected write_file #12 TOOL_INPUT_INVALID");
    expect(out).toContain("verifier checkCompletion #29: passed");
    expect(out).toContain("budget report:");
    const events = await runYoke(["show", "run_cli", "--journal", completed.file, "--events"]);
    expect(events.stdout).toMatch(/# {2}32 {2}run\.completed\s+verified_success after 5 turns/);
    const asJson = JSON.parse((await runYoke(["show", "run_cli", "--journal", completed.file, "--json"])).stdout);
    expect(asJson.header).toMatchObject({ status: "finished", turns: 5 });
    expect(asJson.chain).toMatchObject({ checked: true, ok: true, events: 33 });
  });

  it("show: the crashed-and-resumed run shows the write's attempts, its uncertain state and the reconciliation", async () => {
    const resumed = await crashedAndResumedRun();
    const shown = await runYoke(["show", "run_cli", "--journal", resumed.file]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /action write_file action_\w+ \(idempotent\): committed\n\s+proposed#17 → validated#17 → authorized#17 → leased#17 → executing#17 → uncertain#18 → reconciled: retry_safe#19 → leased#20 → executing#21 → committed#24/,
    );
    expect(shown.stdout).toMatch(/attempt 1: uncertain #18: the process stopped after dispatch/);
    expect(shown.stdout).toMatch(/attempt 2: committed #24/);
    expect(shown.stdout).toContain("reconciled #19: retry_safe");
  });

  it("show: a tampered run is shown up to the break with the chain's failure, exit 1", async () => {
    const tampered = await tamperedRun();
    const shown = await runYoke(["show", "run_cli", "--journal", tampered.file]);
    expect(shown.code).toBe(1);
    expect(shown.stdout).toContain(`chain: BROKEN at seq ${tampered.tamperedSeq} (hash_mismatch)`);
    expect(shown.stdout).toContain(`(seq ${tampered.tamperedSeq - 1}, ${tampered.tamperedSeq} events)`);
  });

  it("verify: ok for intact runs (exit 0); the tampered run names its first bad seq and why (exit 1)", async () => {
    const ok = await runYoke(["verify", "--journal", (await crashedAndResumedRun()).file]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ok\s+tenant_cli run_cli: 39 events, head [0-9a-f]{12}\n1 run verified, 0 broken\n$/);
    const tampered = await tamperedRun();
    const bad = await runYoke(["verify", "run_cli", "--journal", tampered.file]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(new RegExp(`^BROKEN\\s+tenant_cli run_cli: first bad seq ${tampered.tamperedSeq} \\(hash_mismatch\\): `));
    expect(bad.stdout).toContain("1 run verified, 1 broken");
    const asJson = JSON.parse((await runYoke(["verify", "--journal", tampered.file, "--json"])).stdout);
    expect(asJson).toMatchObject({ ok: false, runs: [{ runId: "run_cli", ok: false, firstBadSeq: tampered.tamperedSeq, reason: "hash_mismatch" }] });
  });

  it("request: the rebuilt bytes hash to the journaled requestHash; the manifest says what was kept and why", async () => {
    const completed = await completedRun();
    const events = await readEvents(completed);
    const requested = events.filter((event) => event.type === "model.requested");
    for (const [index, event] of requested.entries()) {
      const bytes = await runYoke(["request", "run_cli", String(index + 1), "--bytes", "--journal", completed.file]);
      expect(bytes.code).toBe(0);
      expect(createHash("sha256").update(bytes.stdout, "utf8").digest("hex")).toBe((event.data as { requestHash: string }).requestHash);
    }
    const text = await runYoke(["request", "run_cli", "3", "--journal", completed.file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`request ${(requested[2]!.data as { requestHash: string }).requestHash}:`);
    expect(text.stdout).toContain("SHA-256 matches the journaled hash");
    expect(text.stdout).toMatch(/ITEM\s+KIND\s+TRUST\s+SECTION\s+DECISION\s+TOKENS\s+FROM\s+WHY/);
    expect(text.stdout).toMatch(/task\s+task\s+user\s+task\s+included/);
    expect(text.stdout).toMatch(/message:\d+\s+message\s+tool_output\s+transcript\s+included\s+\d+\s+#7/);
    const asJson = JSON.parse((await runYoke(["request", "run_cli", "1", "--journal", completed.file, "--json"])).stdout);
    expect(asJson).toMatchObject({ turn: 1, matches: true, requestHash: (requested[0]!.data as { requestHash: string }).requestHash });
    const noTurn = await runYoke(["request", "run_cli", "9", "--journal", completed.file]);
    expect(noTurn.code).toBe(3);
    expect(noTurn.stderr).toBe("yoke: RUN_NOT_FOUND: the journal has no compiled request for turn 9\n");
    const badTurn = await runYoke(["request", "run_cli", "first", "--journal", completed.file]);
    expect(badTurn.code).toBe(2);
  });

  it("request: a run's per-call settings (start's) are in the rebuilt header, byte for byte what the model was given", async () => {
    const dir = join(scratch, "settings");
    mkdirSync(join(dir, "workspace"), { recursive: true });
    seedWorkspace(join(dir, "workspace"));
    const file = join(dir, "journal.sqlite");
    const journal = await openJournal(file);
    const { harness, model } = scenarioHarness({ journal, workspace: join(dir, "workspace") });
    const settings = { temperature: 0.3, maxOutputTokens: 700, reasoningEffort: "low", providerOptions: { scripted: { seed: 7 } } } as const;
    await harness.start(TASK, { runId: RUN_ID, settings });
    await journal.close();
    for (const [index, call] of model.calls.entries()) {
      const shown = JSON.parse((await runYoke(["request", RUN_ID, String(index + 1), "--journal", file, "--json"])).stdout);
      expect(canonicalJson(shown.request)).toBe(canonicalJson(call));
      expect(shown.request).toMatchObject(settings);
      const bytes = await runYoke(["request", RUN_ID, String(index + 1), "--bytes", "--journal", file]);
      expect(bytes.stdout.split("\n")[0]).toContain('"maxOutputTokens":700');
    }
  });

  it("request --wire: the provider's wire body the adapter rebuilds from the journaled request, exactly; --json labels both forms", async () => {
    const completed = await completedRun();
    const journal = await openJournal(completed.file);
    const rebuilt = await reconstructRequest(journal, { tenantId: "tenant_cli", runId: "run_cli" }, 2);
    await journal.close();
    const openai = await runYoke(["request", "run_cli", "2", "--wire", "openai", "--model", "gpt-4.1-mini", "--journal", completed.file]);
    expect(openai.stderr).toBe("");
    expect(openai.stdout).toBe(JSON.stringify(openAIWireBody(rebuilt.request, { model: "gpt-4.1-mini" })));
    const chat = await runYoke(["request", "run_cli", "2", "--wire", "openai-chat", "--model", "gpt-4.1-mini", "--journal", completed.file]);
    expect(chat.stdout).toBe(JSON.stringify(openAIWireBody(rebuilt.request, { model: "gpt-4.1-mini", api: "chat" })));
    const anthropic = await runYoke(["request", "run_cli", "2", "--wire", "anthropic", "--model", "claude-sonnet-4-6", "--journal", completed.file, "--json"]);
    const both = JSON.parse(anthropic.stdout);
    expect(both.wire).toEqual({
      provider: "anthropic",
      api: "messages",
      model: "claude-sonnet-4-6",
      body: anthropicWireBody(rebuilt.request, { model: "claude-sonnet-4-6" }),
    });
    expect(both.bytes).toBe(rebuilt.bytes);
    const text = await runYoke(["request", "run_cli", "2", "--journal", completed.file]);
    expect(text.stdout).toContain("the provider's wire body the adapter built from it: --wire openai|openai-chat|anthropic");
    const bridge = await runYoke(["request", "run_cli", "2", "--wire", "ai-sdk", "--journal", completed.file]);
    expect(bridge.code).toBe(2);
    expect(bridge.stderr).toContain("the AI SDK bridge cannot rebuild a wire body");
    const unknown = await runYoke(["request", "run_cli", "2", "--wire", "gemini", "--journal", completed.file]);
    expect(unknown.code).toBe(2);
    const both2 = await runYoke(["request", "run_cli", "2", "--wire", "openai", "--bytes", "--journal", completed.file]);
    expect(both2.code).toBe(2);
  });

  it("request: on the resumed run too; on the tampered run the read fails with the typed error, exit 1", async () => {
    const resumed = await crashedAndResumedRun();
    const last = (await readEvents(resumed)).filter((event) => event.type === "model.requested").at(-1)!;
    const bytes = await runYoke(["request", "run_cli", "5", "--bytes", "--journal", resumed.file]);
    expect(createHash("sha256").update(bytes.stdout, "utf8").digest("hex")).toBe((last.data as { requestHash: string }).requestHash);
    const tampered = await tamperedRun();
    const broken = await runYoke(["request", "run_cli", "3", "--journal", tampered.file]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^yoke: JOURNAL_CHAIN_BROKEN: /);
    expect(broken.stderr).not.toMatch(NO_STACK);
  });

  it("export → import: canonical JSON that imports into a new journal with the same hashes; a second import is refused", async () => {
    const resumed = await crashedAndResumedRun();
    const exported = await runYoke(["export", "run_cli", "--journal", resumed.file]);
    expect(exported.code).toBe(0);
    const document = JSON.parse(exported.stdout);
    expect(document).toMatchObject({ format: "yoke.run-export", version: 1, tenantId: "tenant_cli", runId: "run_cli" });
    expect(document.events).toHaveLength(39);
    expect(exported.stdout).toBe(`${JSON.stringify(document)}\n`);
    const file = join(scratch, "run.json");
    const toFile = await runYoke(["export", "run_cli", "--out", file, "--journal", resumed.file]);
    expect(toFile.stdout).toBe(`exported 39 events of run_cli (tenant tenant_cli) to ${file}\n`);
    expect(readFileSync(file, "utf8")).toBe(exported.stdout);

    const target = join(scratch, "imported.sqlite");
    const imported = await runYoke(["import", file, "--journal", target]);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/^imported 39 events of run_cli \(tenant tenant_cli\) into .*imported\.sqlite; chain verified/);
    const verified = await runYoke(["verify", "run_cli", "--journal", target, "--json"]);
    expect(JSON.parse(verified.stdout).runs[0]).toMatchObject({ ok: true, events: 39, headHash: document.headHash });
    expect((await runYoke(["export", "run_cli", "--journal", target])).stdout).toBe(exported.stdout);

    const again = await runYoke(["import", file, "--journal", target]);
    expect(again.code).toBe(4);
    expect(again.stderr).toBe("yoke: RUN_ALREADY_EXISTS: the journal already holds run run_cli for tenant tenant_cli; nothing imported\n");
  });

  it("import refuses an export whose chain is broken (an edited event) and writes nothing; export refuses a tampered run", async () => {
    const completed = await completedRun();
    const exported = (await runYoke(["export", "run_cli", "--journal", completed.file])).stdout;
    const edited = join(scratch, "edited.json");
    writeFileSync(edited, exported.replace("ship the journal", "ship the journa1"));
    const target = join(scratch, "refused.sqlite");
    const refused = await runYoke(["import", edited, "--journal", target]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe("yoke: JOURNAL_CHAIN_BROKEN: the export's event 7 does not hash to its recorded hash: it was edited\n");
    // Nothing was written: the chain is checked before the journal is opened, so no file (not even
    // an empty journal or its -wal) exists, and reading it finds no journal.
    expect(readdirSync(scratch).filter((name) => name.startsWith("refused.sqlite"))).toEqual([]);
    const after = await runYoke(["runs", "--journal", target, "--json"]);
    expect(after.code).toBe(3);
    expect(readdirSync(scratch).filter((name) => name.startsWith("refused.sqlite"))).toEqual([]);
    const notJson = join(scratch, "not.json");
    writeFileSync(notJson, "hello");
    expect((await runYoke(["import", notJson, "--journal", target])).stderr).toMatch(/^yoke: CONFIG_INVALID: the file is not JSON/);

    const tampered = await tamperedRun();
    const exportTampered = await runYoke(["export", "run_cli", "--journal", tampered.file]);
    expect(exportTampered.code).toBe(1);
    expect(exportTampered.stdout).toBe("");
    expect(exportTampered.stderr).toMatch(/^yoke: JOURNAL_CHAIN_BROKEN: run run_cli cannot be exported: /);
  });

  it("resume: a run a SIGKILL cut short is finished by the harness a user module builds", async () => {
    const crashed = await crashedRun({ fresh: true });
    const harness = fileURLToPath(new URL("./support/resume-harness.ts", import.meta.url));
    const before = await runYoke(["runs", "--journal", crashed.file, "--json"]);
    expect(JSON.parse(before.stdout).runs[0]).toMatchObject({ status: "running" });
    const resumed = await runYoke(["resume", "run_cli", "--harness", harness, "--journal", crashed.file], { env: { YOKE_TEST_WORKSPACE: crashed.workspace } });
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("run run_cli: verified_success after 5 turns\n");
    const shown = await runYoke(["show", "run_cli", "--journal", crashed.file]);
    expect(shown.stdout).toContain("reconciled #19: retry_safe");
    expect((await runYoke(["verify", "--journal", crashed.file])).code).toBe(0);
    // Resuming a finished run returns its outcome without calling the model again.
    const again = await runYoke(["resume", "run_cli", "--harness", harness, "--journal", crashed.file], { env: { YOKE_TEST_WORKSPACE: crashed.workspace } });
    expect(again.stdout).toBe("run run_cli: verified_success after 5 turns\n");
  }, 240_000);

  it("resume: a module without a factory, or no --harness, are typed errors", async () => {
    const completed = await completedRun();
    const empty = join(scratch, "empty-harness.mjs");
    writeFileSync(empty, "export const nothing = 1;\n");
    const noFactory = await runYoke(["resume", "run_cli", "--harness", empty, "--journal", completed.file]);
    expect(noFactory.code).toBe(4);
    expect(noFactory.stderr).toMatch(/^yoke: CONFIG_INVALID: --harness .* exports no factory/);
    const noHarness = await runYoke(["resume", "run_cli", "--journal", completed.file]);
    expect(noHarness.code).toBe(2);
  });

  it("a 10,000-event run: show, verify and export work on it", async () => {
    const large = await largeRun();
    expect(large.events).toBeGreaterThanOrEqual(10_000);
    const shown = await runYoke(["show", "run_cli", "--journal", large.file]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`(seq ${large.events - 1}, ${large.events} events)`);
    const verified = await runYoke(["verify", "--journal", large.file]);
    expect(verified.stdout).toContain(`: ${large.events} events`);
    const exported = await runYoke(["export", "run_cli", "--journal", large.file]);
    expect(JSON.parse(exported.stdout).events).toHaveLength(large.events);
  }, 300_000);
});

describe("yoke view (the binary)", { timeout: 120_000 }, () => {
  it("serves the viewer on 127.0.0.1, prints its URL (at the run), answers its API, and stops on SIGTERM with exit 0", async () => {
    const tampered = await tamperedRun();
    const child = spawn(process.execPath, [YOKE_BIN, "view", "run_cli", "--journal", tampered.file], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const line = await new Promise<string>((resolve, reject) => {
      let buffered = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        buffered += chunk;
        if (buffered.includes("\n")) resolve(buffered.split("\n")[0]!);
      });
      child.on("exit", () => reject(new Error(`yoke view exited: ${stderr}`)));
    });
    const url = /^yoke view: (http:\/\/127\.0\.0\.1:\d+\/\S*) \(/.exec(line)?.[1];
    expect(url, line).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#\/run\/tenant_cli\/run_cli$/);
    const origin = new URL(url!).origin;
    const page = await fetch(`${origin}/`);
    expect(page.status).toBe(200);
    const runs = (await (await fetch(`${origin}/api/runs`)).json()) as unknown;
    expect(JSON.stringify(runs)).toContain("run_cli");
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
  }, 240_000);

  it("a bad --port is a usage error; an unknown run is RUN_NOT_FOUND (exit 3)", async () => {
    const completed = await completedRun();
    const badPort = await runYoke(["view", "--port", "http", "--journal", completed.file]);
    expect(badPort.code).toBe(2);
    const unknown = await runYoke(["view", "run_nope", "--journal", completed.file]);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toBe("yoke: RUN_NOT_FOUND: no run run_nope in the journal\n");
  });
});

describe("yoke export --otlp (the binary)", { timeout: 120_000 }, () => {
  it("sends the run's spans to an OTLP/HTTP receiver on 127.0.0.1; a refused export is EXPORT_FAILED (exit 4)", async () => {
    const bodies: { resourceSpans: { scopeSpans: { spans: { name: string; traceId: string }[] }[] }[] }[] = [];
    let status = 200;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        if (status === 200) bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        response.writeHead(status, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
    try {
      const resumed = await crashedAndResumedRun();
      const sent = await runYoke(["export", "run_cli", "--otlp", url, "--journal", resumed.file]);
      expect(sent.stderr).toBe("");
      expect(sent.code).toBe(0);
      const names = bodies.flatMap((body) =>
        body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => span.name))),
      );
      expect(sent.stdout).toMatch(new RegExp(`^exported ${names.length} spans of run_cli to ${url.replace(/[.]/g, "\\.")} \\(trace [0-9a-f]{32}\\)\\n$`));
      expect(names).toContain("invoke_agent yoke");
      // The rejected malformed call of turn 2, and the two attempts of turn 3's write (the SIGKILL cut the first).
      expect(names.filter((name) => name === "execute_tool write_file")).toHaveLength(3);
      status = 503;
      const refused = await runYoke(["export", "run_cli", "--otlp", url, "--journal", resumed.file]);
      expect(refused.code).toBe(4);
      expect(refused.stderr).toMatch(/^yoke: EXPORT_FAILED: /);
      expect(refused.stderr.split("\n")).toHaveLength(2);
      const both = await runYoke(["export", "run_cli", "--otlp", url, "--out", "x.json", "--journal", resumed.file]);
      expect(both.code).toBe(2);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 240_000);
});
