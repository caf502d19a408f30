// A planted secret reaches the harness through every channel it has (the task, a tool's
// input, output and error, a tool name the model made up, a provider error, the
// application's own log line); none of it reaches the SQLite journal file, the pino output
// or the error `start` throws. The same run without `secrets` is the control: it leaks.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { YokeError, sequentialIdSource, steppingClock } from "@yoke/protocol";
import { callTools, createScriptedModel, failWith, rejectionOf, unknownTool } from "@yoke/testkit";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { createHarness } from "./harness.js";
import { createRedactor } from "./redaction.js";

const SECRET = "sk-live-9f8e7d6c5b4a3210";
const FORMS = [SECRET, Buffer.from(SECRET).toString("base64"), encodeURIComponent(`${SECRET}/x`)];

function occurrences(haystack: Buffer | string, needle: string): number {
  const text = typeof haystack === "string" ? haystack : haystack.toString("latin1");
  return text.split(needle).length - 1;
}

/** Every byte SQLite keeps for the journal: the file and, if any is left, its WAL. */
function journalBytes(filename: string): Buffer {
  return Buffer.concat([filename, `${filename}-wal`, `${filename}-journal`].filter(existsSync).map((path) => readFileSync(path)));
}

async function plantedRun(filename: string, secrets: readonly string[] | undefined) {
  const lines: string[] = [];
  const sink = { write: (line: string) => void lines.push(line) };
  // The application's own logger, which a tool logs through; redacted by the documented hook when there are secrets.
  const appLogger = pino({ level: "trace", ...(secrets ? { hooks: { streamWrite: createRedactor(secrets).redactText } } : {}) }, sink);
  const vault = defineTool({
    name: "vault",
    description: "Reads a credential.",
    input: z.object({ name: z.string() }),
    sideEffect: "idempotent",
    execute: async ({ name }) => {
      appLogger.info({ name }, `vault read ${SECRET}`);
      return {
        content: `credential for ${name}: ${SECRET}`,
        output: { [SECRET]: Buffer.from(SECRET).toString("base64"), url: `https://api.test/?key=${encodeURIComponent(`${SECRET}/x`)}` },
      };
    },
  });
  const leaky = defineTool({
    name: "leaky",
    description: "Fails with a secret in its message.",
    input: z.object({}),
    sideEffect: "none",
    execute: async () => {
      throw new Error(`auth failed for ${SECRET}`);
    },
  });
  const harness = createHarness({
    journal: filename,
    provider: createScriptedModel([
      callTools([{ name: "vault", args: { name: SECRET } }, { name: "leaky" }], `I will use ${SECRET}`),
      unknownTool(SECRET),
      failWith(new YokeError("PROVIDER_REQUEST_INVALID", `the request echoed ${SECRET}`, { details: { body: SECRET } })),
    ]),
    tools: [vault, leaky],
    tenantId: "acme",
    clock: steppingClock(1_000, 1),
    ids: sequentialIdSource(),
    logger: pino({ level: "trace" }, sink),
    ...(secrets ? { secrets } : {}),
  });
  const error = await rejectionOf(harness.start(`Fetch the credential ${SECRET} and report.`, { runId: "run_1" }));
  const types: string[] = [];
  for await (const event of harness.events("run_1")) types.push(event.type);
  await harness.close();
  return { error, lines, types, bytes: journalBytes(filename) };
}

describe("secrets", () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "yoke-secrets-"));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("never reach the SQLite journal file, the pino output or the thrown error; without `secrets` the same run leaks them", async () => {
    const redacted = await plantedRun(join(directory, "redacted.db"), [SECRET]);
    expect(redacted.types).toEqual(expect.arrayContaining(["action.committed", "action.failed", "tool.rejected", "run.failed"]));
    for (const form of FORMS) {
      expect(occurrences(redacted.bytes, form), form).toBe(0);
      expect(occurrences(redacted.lines.join(""), form), form).toBe(0);
    }
    expect(occurrences(redacted.bytes, "[REDACTED]")).toBeGreaterThanOrEqual(6);
    expect(redacted.lines.join("")).toContain("vault read [REDACTED]");
    expect(redacted.lines.some((line) => line.includes('"msg":"tool call rejected"') && line.includes("[REDACTED]"))).toBe(true);
    expect(redacted.error).toMatchObject({ code: "PROVIDER_REQUEST_INVALID", message: "the request echoed [REDACTED]", details: { body: "[REDACTED]" } });
    expect(`${redacted.error.stack}`).not.toContain(SECRET);

    const control = await plantedRun(join(directory, "control.db"), undefined);
    expect(control.types).toEqual(redacted.types);
    for (const form of FORMS) expect(occurrences(control.bytes, form), form).toBeGreaterThan(0);
    expect(occurrences(control.lines.join(""), SECRET)).toBeGreaterThan(0);
    expect(control.error.message).toContain(SECRET);
  });

  it("refuses a secret shorter than 8 characters with CONFIG_INVALID", () => {
    expect(() => createHarness({ provider: createScriptedModel([]), secrets: ["short"] })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});
