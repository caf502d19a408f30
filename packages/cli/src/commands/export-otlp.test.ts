import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryJournal } from "@yoke/journal";
import { type JournalEvent, sequentialIdSource, steppingClock, YokeError } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { exportRunOtlp } from "./export-otlp.js";

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: { key: string; value: OtlpValue }[];
  status?: { code?: number; message?: string };
}
interface OtlpBody {
  resourceSpans: { resource?: { attributes?: { key: string; value: OtlpValue }[] }; scopeSpans: { scope?: { name: string }; spans: OtlpSpan[] }[] }[];
}

/** A minimal OTLP/HTTP traces receiver on 127.0.0.1 (JSON encoding). */
async function startReceiver() {
  const received: { headers: IncomingHttpHeaders; body: OtlpBody }[] = [];
  let status = 200;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") return void response.writeHead(404).end();
      if (status === 200) received.push({ headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpBody });
      response.writeHead(status, { "content-type": "application/json" }).end(status === 200 ? "{}" : JSON.stringify({ code: 3, message: "bad spans" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    received,
    answer(code: number) {
      status = code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const value = (v: OtlpValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? (v.arrayValue ? (v.arrayValue.values ?? []).map(value) : undefined)));

function spansOf(received: readonly { body: OtlpBody }[]) {
  return received.flatMap(({ body }) =>
    body.resourceSpans.flatMap((resource) =>
      resource.scopeSpans.flatMap((scope) =>
        scope.spans.map((span) => ({
          ...span,
          parentSpanId: span.parentSpanId || undefined,
          attributes: Object.fromEntries((span.attributes ?? []).map(({ key, value: v }) => [key, value(v)])),
          resource: Object.fromEntries((resource.resource?.attributes ?? []).map(({ key, value: v }) => [key, value(v)])),
          scope: scope.scope?.name,
        })),
      ),
    ),
  );
}

/** A real run: the runtime's harness on a memory journal, a scripted model, one tool that works and one call that fails. */
async function realRun() {
  const journal = createMemoryJournal();
  const model = createScriptedModel(
    [
      {
        ...callTools([
          { name: "lookup", args: { order: 42 } },
          { name: "lookup", args: { order: -1 } },
        ]),
        usage: { inputTokens: 90, outputTokens: 12 },
        id: "resp_1",
      },
      { ...say("Order 42 shipped."), usage: { inputTokens: 140, outputTokens: 6 }, id: "resp_2" },
    ],
    { modelId: "scripted-1" },
  );
  const lookup = defineTool({
    name: "lookup",
    description: "Look an order up.",
    input: z.object({ order: z.number() }),
    sideEffect: "none",
    async execute({ order }) {
      if (order < 0) throw new YokeError("TOOL_FAILED", `no order ${order}`);
      return `order ${order}: shipped`;
    },
  });
  const clock = steppingClock(Date.UTC(2026, 5, 1), 3);
  const harness = createHarness({ journal, provider: model, tools: [lookup], tenantId: "tenant_cli", clock, ids: sequentialIdSource() });
  const { runId } = await harness.start("Where is order 42?", { runId: "run_cli_export" });
  const events: JournalEvent[] = [];
  for await (const event of journal.read({ tenantId: "tenant_cli", runId })) events.push(event);
  return { journal, runId, events };
}

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
});

describe("exportRunOtlp", () => {
  it("sends a real run's spans to an OTLP/HTTP receiver as JSON, with its headers and service name", async () => {
    const { events } = await realRun();
    const result = await exportRunOtlp(events, { url: receiver.url, headers: { "x-api-key": "k-123" }, serviceName: "support-bot" });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.headers["content-type"]).toBe("application/json");
    expect(receiver.received[0]!.headers["x-api-key"]).toBe("k-123");
    const spans = spansOf(receiver.received);
    expect(spans).toHaveLength(result.spans);
    expect(result.traceIds).toEqual([spans[0]!.traceId]);
    expect(spans.every((span) => span.resource["service.name"] === "support-bot" && span.scope === "@yoke/otel")).toBe(true);

    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const tree = spans.map((span) => `${byId.get(span.parentSpanId ?? "")?.name ?? "-"} > ${span.name}`).sort();
    expect(tree).toEqual(
      [
        "- > invoke_agent yoke",
        "invoke_agent yoke > turn 1",
        "invoke_agent yoke > turn 2",
        "turn 1 > chat scripted-1",
        "turn 1 > execute_tool lookup",
        "turn 1 > execute_tool lookup",
        "turn 2 > chat scripted-1",
      ].sort(),
    );
    const run = spans.find((span) => span.parentSpanId === undefined)!;
    expect(run.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "yoke.run.id": "run_cli_export", "yoke.run.outcome": "completed" });
    expect(BigInt(run.startTimeUnixNano)).toBe(BigInt(Date.UTC(2026, 5, 1)) * 1_000_000n);
    const chats = spans.filter((span) => span.name === "chat scripted-1").map((span) => span.attributes);
    expect(chats.map((chat) => [chat["gen_ai.usage.input_tokens"], chat["gen_ai.response.id"], chat["gen_ai.provider.name"]])).toEqual([
      [90, "resp_1", "scripted"],
      [140, "resp_2", "scripted"],
    ]);
    const failed = spans.find((span) => span.attributes["yoke.action.state"] === "failed")!;
    expect(failed.status).toEqual({ code: 2, message: "TOOL_FAILED: no order -1" });
    expect(failed.attributes["error.type"]).toBe("TOOL_FAILED");
  });

  it("reads the events straight from a journal (an async iterable), and the same run exported twice sends the same spans", async () => {
    const { journal, runId, events } = await realRun();
    const first = await exportRunOtlp(journal.read({ tenantId: "tenant_cli", runId }), { url: receiver.url });
    const second = await exportRunOtlp(events, { url: receiver.url });
    expect(second.spans).toBe(first.spans);
    expect(second.traceIds[0]).not.toBe(first.traceIds[0]);
    const strip = (spans: ReturnType<typeof spansOf>) =>
      spans.map(({ name, startTimeUnixNano, endTimeUnixNano, attributes, status }) => ({ name, startTimeUnixNano, endTimeUnixNano, attributes, status }));
    const [a, b] = [spansOf([receiver.received[0]!]), spansOf([receiver.received[1]!])];
    expect(strip(b)).toEqual(strip(a));
  });

  it("throws EXPORT_FAILED naming the URL when the collector refuses the spans", async () => {
    const { events } = await realRun();
    receiver.answer(400);
    const error = await exportRunOtlp(events, { url: receiver.url }).catch((caught: unknown) => caught);
    expect(YokeError.hasCode(error, "EXPORT_FAILED")).toBe(true);
    expect((error as YokeError).message).toContain(`to ${receiver.url}`);
    expect((error as YokeError).details).toMatchObject({ url: receiver.url });
    expect((error as YokeError).retryable).toBe(true);
  });

  it("refuses a URL that is not http(s) with CONFIG_INVALID, before sending anything", async () => {
    const { events } = await realRun();
    for (const url of ["127.0.0.1:4318", "ftp://127.0.0.1/v1/traces"]) {
      const error = await exportRunOtlp(events, { url }).catch((caught: unknown) => caught);
      expect(YokeError.hasCode(error, "CONFIG_INVALID"), url).toBe(true);
    }
    expect(receiver.received).toHaveLength(0);
  });
});
