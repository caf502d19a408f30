import { YokeError } from "@yoke/protocol";
import { callTools, failWith, malformedToolArguments, say } from "@yoke/testkit";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";
import type { Logger } from "./logger.js";

const SECRETS = ["SECRET_TASK", "SECRET_SYSTEM", "SECRET_INPUT", "SECRET_OUTPUT", "SECRET_ERROR", "SECRET_MODEL_TEXT", "SECRET_RAW"];

describe("logs", () => {
  it("carry ids, seqs, tool names, durations and codes, never task, messages, tool input or output", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "trace" }, { write: (line: string) => void lines.push(line) });
    const vault = defineTool({
      name: "vault",
      description: "Handles secrets.",
      input: z.object({ value: z.string() }),
      sideEffect: "idempotent",
      execute: async ({ value }) => ({ content: `SECRET_OUTPUT for ${value}`, output: { echoed: value } }),
    });
    const leaky = defineTool({
      name: "leaky",
      description: "Fails with a secret in its message.",
      input: z.object({}),
      sideEffect: "none",
      execute: async () => {
        throw new Error("SECRET_ERROR: password=hunter2");
      },
    });
    const { harness } = rig(
      [
        failWith(new YokeError("PROVIDER_UNAVAILABLE", "upstream")),
        callTools([{ name: "vault", args: { value: "SECRET_INPUT" } }, { name: "leaky" }], "SECRET_MODEL_TEXT"),
        malformedToolArguments("vault", "SECRET_RAW {"),
        say("SECRET_MODEL_TEXT done"),
      ],
      { tools: [vault, leaky], logger, systemPrompt: "SECRET_SYSTEM", checkCompletion: async () => ({ passed: true, summary: "SECRET_OUTPUT" }) },
    );
    const { runId } = await harness.start("SECRET_TASK");
    const text = lines.join("");
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).not.toContain("hunter2");

    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.every((record) => record.runId === runId && record.tenantId === "tenant_test")).toBe(true);
    const messages = records.map((record) => record.msg);
    expect(messages).toEqual(
      expect.arrayContaining([
        "run started",
        "events appended",
        "model responded",
        "tool call completed",
        "tool call rejected",
        "model call failed; retrying",
        "run completed",
      ]),
    );
    const failed = records.find((record) => record.msg === "tool call completed" && record.toolName === "leaky");
    expect(failed).toMatchObject({ status: "error", code: "TOOL_FAILED", attempt: 1 });
    expect(typeof failed?.durationMs).toBe("number");
    expect(records.find((record) => record.msg === "tool call rejected")).toMatchObject({ toolName: "vault", code: "TOOL_INPUT_INVALID" });
  });

  it("are silent by default", async () => {
    const { harness } = rig([say("done")]);
    await expect(harness.start("t")).resolves.toMatchObject({ outcome: { status: "completed" } });
  });
});

describe("a logger that is not pino", () => {
  it("takes console's shape: four methods, no child; the run's ids are added to every call's fields", async () => {
    // `console` itself is a Logger.
    const consoleIsOne: Logger = console;
    void consoleIsOne;
    const calls: { level: string; fields: Record<string, unknown>; message: string | undefined }[] = [];
    const record = (level: string) => (fields: Record<string, unknown>, message?: string) => void calls.push({ level, fields, message });
    const logger: Logger = { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
    const { harness } = rig([failWith(new YokeError("PROVIDER_UNAVAILABLE", "upstream")), say("done")], { logger });
    const { runId } = await harness.start("t");
    expect(calls.length).toBeGreaterThan(0);
    const runCalls = calls.filter((call) => call.fields.runId === runId);
    expect(runCalls.length).toBeGreaterThan(0);
    expect(runCalls.every((call) => call.fields.tenantId === "tenant_test" && typeof call.message === "string")).toBe(true);
    expect(calls.some((call) => call.level === "warn" || call.level === "info")).toBe(true);
  });
});
