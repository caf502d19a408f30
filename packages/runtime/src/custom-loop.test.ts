// Composition in a custom runtime (issue 12, item 9): a minimal loop built only from
// `@yoke/runtime/loop`, a scripted model from testkit and a memory journal writes a journal
// that the journal verifies, the runtime's reader parses and folds, and a harness resumes.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { EVENT_SCHEMA_VERSION, YokeError, canonicalJson, steppingClock, toolCallsOf, type ModelRequest } from "@yoke/protocol";
import { createMemoryJournal } from "@yoke/journal";
import { callTools, createScriptedModel, failWith, rejectionOf, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { createHarness } from "./harness.js";
import {
  currentTurn,
  errorEnvelope,
  generateWithRetry,
  isRetryableModelError,
  loadRunState,
  modelRetryDelayMs,
  outputEnvelope,
  validateCalls,
  yokeEventDraft,
} from "./loop-entry.js";

const echo = defineTool({
  name: "echo",
  description: "Echoes text.",
  input: z.object({ text: z.string() }),
  sideEffect: "none",
  execute: async ({ text }) => text,
});
const instantSleep = async () => undefined;

describe("a custom loop from @yoke/runtime/loop", () => {
  it("writes a journal that verifies, that the runtime reads and folds, and that a harness resumes", async () => {
    const clock = steppingClock(1_000, 1);
    const journal = createMemoryJournal({ clock });
    const scope = { tenantId: "default", runId: "run_custom" };
    const model = createScriptedModel([
      failWith(new YokeError("PROVIDER_UNAVAILABLE", "503")), // retried by the policy
      callTools([
        { name: "echo", args: { text: "hi" } },
        { name: "nope", args: {} },
      ]),
      say("done"),
    ]);
    const tools = new Map([[echo.name, echo]]);
    const at = () => ({ at: clock.now() });

    await journal.append(scope, 0, [
      yokeEventDraft(
        "run.started",
        {
          sessionId: "session_1",
          task: "Say hi through echo.",
          tools: [echo.spec],
          limits: { maxTurns: 4 },
          release: { runtime: "my-loop@1.0.0", eventSchemaVersion: EVENT_SCHEMA_VERSION },
        },
        at(),
      ),
    ]);
    for (let index = 1; index <= 4; index++) {
      const state = (await loadRunState(journal, scope))!;
      if (state.phase === "finished") break;
      const turnId = `turn_${index}`;
      const request: ModelRequest = { messages: [...state.messages], tools: [...state.tools] };
      const requestHash = createHash("sha256").update(canonicalJson(request)).digest("hex");
      let seq = state.length;
      await journal.append(scope, seq, [
        yokeEventDraft("turn.started", { turnId, index }, at()),
        yokeEventDraft("model.requested", { turnId, requestHash, messageCount: request.messages.length }, at()),
      ]);
      seq += 2;
      const response = await generateWithRetry(model, request, {
        sleep: instantSleep,
        onFailure: async (failure) => {
          await journal.append(scope, seq, [yokeEventDraft("model.failed", { turnId, ...failure }, at())]);
          seq += 1;
        },
      });
      const calls = toolCallsOf(response);
      const verdicts = await validateCalls(calls, tools);
      await journal.append(scope, seq, [
        yokeEventDraft("model.responded", { turnId, response, latencyMs: 0 }, at()),
        ...verdicts.map((verdict, position) => {
          const call = calls[position]!;
          const ref = { turnId, toolCallId: call.toolCallId, toolName: call.toolName };
          return verdict.kind === "start"
            ? yokeEventDraft(
                "tool.started",
                { ...ref, actionId: `action_${call.toolCallId}`, attemptId: `attempt_${call.toolCallId}`, attempt: 1, input: verdict.input },
                at(),
              )
            : yokeEventDraft("tool.rejected", { ...ref, code: verdict.code, result: errorEnvelope(verdict.code, verdict.message, clock.now(), clock) }, at());
        }),
      ]);
      seq += 1 + verdicts.length;
      const afterResponse = (await loadRunState(journal, scope))!;
      expect(currentTurn(afterResponse)).toBe(turnId);
      if (calls.length === 0) {
        await journal.append(scope, seq, [yokeEventDraft("run.completed", { outcome: { status: "completed" }, turns: index }, at())]);
        break;
      }
      const completed = [];
      for (const [position, verdict] of verdicts.entries()) {
        if (verdict.kind !== "start") continue;
        const call = calls[position]!;
        const startedAt = clock.now();
        const output = `echo: ${(verdict.value as { text: string }).text}`;
        const { result } = await outputEnvelope(verdict.tool, output, startedAt, clock);
        completed.push(
          yokeEventDraft(
            "tool.completed",
            {
              turnId,
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              actionId: `action_${call.toolCallId}`,
              attemptId: `attempt_${call.toolCallId}`,
              result,
            },
            at(),
          ),
        );
      }
      await journal.append(scope, seq, completed);
    }
    model.assertConsumed();

    // The journal verifies end to end.
    expect(await journal.verify(scope)).toMatchObject({ ok: true });
    // The runtime reads it: every event parses, the fold finishes, and a harness over the same
    // journal returns the run's outcome and final text without calling a model.
    const harness = createHarness({ journal, provider: createScriptedModel([]), tools: [echo] });
    const types: string[] = [];
    for await (const event of harness.events("run_custom")) types.push(event.type);
    expect(types).toEqual([
      "run.started",
      "turn.started",
      "model.requested",
      "model.failed",
      "model.responded",
      "tool.started",
      "tool.rejected",
      "tool.completed",
      "turn.started",
      "model.requested",
      "model.responded",
      "run.completed",
    ]);
    const state = await harness.getState("run_custom");
    expect(state).toMatchObject({ phase: "finished", outcome: { status: "completed" }, turns: 2 });
    const resumed = await harness.resume("run_custom");
    expect(resumed.outcome).toEqual({ status: "completed" });
    expect(resumed.text).toBe("done");
  });

  it("yokeEventDraft checks data against the event's schema (EVENT_INVALID), as the runtime's reader will", () => {
    expect(() => yokeEventDraft("turn.started", { turnId: "turn_1", index: 0 }, { at: 1 })).toThrow(expect.objectContaining({ code: "EVENT_INVALID" }));
    expect(() => yokeEventDraft("turn.exploded" as "turn.started", { turnId: "t", index: 1 }, { at: 1 })).toThrow(
      expect.objectContaining({ code: "EVENT_INVALID" }),
    );
    expect(yokeEventDraft("turn.started", { turnId: "turn_1", index: 1 }, { at: 5 })).toEqual({
      type: "turn.started",
      at: 5,
      causationId: null,
      data: { turnId: "turn_1", index: 1 },
    });
  });

  it("the retry policy: which errors are retried, how long to wait, and that the last failure is rethrown", async () => {
    expect(isRetryableModelError(new YokeError("PROVIDER_RATE_LIMITED", "429"))).toBe(true);
    expect(isRetryableModelError(new YokeError("PROVIDER_REQUEST_INVALID", "400"))).toBe(false);
    expect(isRetryableModelError(new Error("plain"))).toBe(false);
    expect(modelRetryDelayMs(new YokeError("PROVIDER_UNAVAILABLE", "503"), 0)).toBe(500);
    expect(modelRetryDelayMs(new YokeError("PROVIDER_UNAVAILABLE", "503"), 2)).toBe(2_000);
    expect(modelRetryDelayMs(new YokeError("PROVIDER_UNAVAILABLE", "503"), 20)).toBe(30_000);
    expect(modelRetryDelayMs(new YokeError("PROVIDER_RATE_LIMITED", "429", { details: { retryAfterMs: 7 } }), 3)).toBe(7);

    const waits: number[] = [];
    const failures: unknown[] = [];
    const outage = () => failWith(new YokeError("PROVIDER_UNAVAILABLE", "503"));
    const error = await rejectionOf(
      generateWithRetry(
        createScriptedModel([outage(), outage()]),
        { messages: [], tools: [] },
        {
          retries: 1,
          sleep: async (ms) => void waits.push(ms),
          onFailure: (failure) => void failures.push(failure),
        },
      ),
    );
    expect(error.code).toBe("PROVIDER_UNAVAILABLE");
    expect(waits).toEqual([500]);
    expect(failures).toEqual([
      { attempt: 1, code: "PROVIDER_UNAVAILABLE", message: "503", retryable: true, retrying: true },
      { attempt: 2, code: "PROVIDER_UNAVAILABLE", message: "503", retryable: true, retrying: false },
    ]);
  });

  it("the built entry loads none of the harness: no context compiler, journal store or logger in its module graph", () => {
    const dist = join(import.meta.dirname, "../dist");
    const seen = new Set<string>();
    const bare = new Set<string>();
    const pending = [join(dist, "loop-entry.js")];
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const source = readFileSync(file, "utf8");
      for (const match of source.matchAll(/(?:from\s*|import\s*\(?\s*)["']([^"']+)["']/g)) {
        const specifier = match[1]!;
        if (specifier.startsWith(".")) pending.push(join(dirname(file), specifier));
        else bare.add(specifier);
      }
      expect(source, file).not.toContain("function createHarness");
    }
    expect([...bare].sort()).toEqual(["@yoke/protocol", "@yoke/scheduler"]);
  });
});
