// Shared by this package's tests: the AI SDK's own mock model, and the real
// @ai-sdk/openai-compatible provider pointed at a replay server.
import { fileURLToPath } from "node:url";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4StreamPart, LanguageModelV4StreamResult, LanguageModelV4Usage } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import type { ModelRequest } from "@yoke/protocol";
import { createReplayServer, readReplayFixture, type ReplayExchange, type ReplayServer } from "@yoke/testkit/replay";
import { createAiSdkProvider, type AiSdkProvider, type AiSdkProviderOptions } from "../index.js";

const FIXTURES = fileURLToPath(new URL("./", import.meta.url));

export const fixture = (file: string, overrides: Partial<ReplayExchange> = {}): ReplayExchange => readReplayFixture(FIXTURES, file, overrides);

export interface CompatReplay {
  server: ReplayServer;
  provider: AiSdkProvider;
}

/** A replay server serving `exchanges`, and the bridge over a real `@ai-sdk/openai-compatible` chat model aimed at it. */
export async function compatReplay(
  exchanges: ReplayExchange[],
  options: Partial<AiSdkProviderOptions> & { supportsStructuredOutputs?: boolean } = {},
): Promise<CompatReplay> {
  const server = await createReplayServer(exchanges);
  const { supportsStructuredOutputs, ...rest } = options;
  const local = createOpenAICompatible({
    name: "local",
    baseURL: `${server.url}/v1`,
    apiKey: "sk-local",
    includeUsage: true,
    ...(supportsStructuredOutputs === undefined ? {} : { supportsStructuredOutputs }),
  });
  const provider = createAiSdkProvider({ model: local.chatModel("qwen3-8b-instruct"), now: () => Date.UTC(2026, 0, 1), ...rest });
  return { server, provider };
}

export const usage = (input: number, output: number, extra: { cacheRead?: number; reasoning?: number } = {}): LanguageModelV4Usage => ({
  inputTokens: { total: input, noCache: input - (extra.cacheRead ?? 0), cacheRead: extra.cacheRead, cacheWrite: undefined },
  outputTokens: { total: output, text: output - (extra.reasoning ?? 0), reasoning: extra.reasoning },
});

/** A stream result of these parts, optionally failing with `error` after them (a cut connection). */
export function streamOf(
  parts: readonly LanguageModelV4StreamPart[],
  options: { error?: unknown; headers?: Record<string, string> } = {},
): LanguageModelV4StreamResult {
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      if (options.error !== undefined) controller.error(options.error);
      else controller.close();
    },
  });
  return { stream, ...(options.headers === undefined ? {} : { response: { headers: options.headers } }) };
}

/** A stream that stays open until the call's abort signal fires, then fails with its reason (as fetch does). */
export function hangingStream(signal: AbortSignal | undefined, parts: readonly LanguageModelV4StreamPart[] = []): LanguageModelV4StreamResult {
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      signal?.addEventListener("abort", () => controller.error(signal.reason), { once: true });
    },
  });
  return { stream };
}

export const textParts = (text: string, finish: Partial<Extract<LanguageModelV4StreamPart, { type: "finish" }>> = {}): LanguageModelV4StreamPart[] => [
  { type: "stream-start", warnings: [] },
  { type: "response-metadata", id: "mock-resp-1", modelId: "mock-model-2026-01" },
  { type: "text-start", id: "t0" },
  ...text.split(/(?<= )/).map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t0", delta })),
  { type: "text-end", id: "t0" },
  { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(10, 4), ...finish },
];

export const toolCallParts = (calls: readonly { id: string; input: string }[], name = "get_weather"): LanguageModelV4StreamPart[] => [
  { type: "stream-start", warnings: [] },
  ...calls.flatMap((call): LanguageModelV4StreamPart[] => [
    { type: "tool-input-start", id: call.id, toolName: name },
    { type: "tool-input-delta", id: call.id, delta: call.input.slice(0, 5) },
    { type: "tool-input-delta", id: call.id, delta: call.input.slice(5) },
    { type: "tool-input-end", id: call.id },
    { type: "tool-call", toolCallId: call.id, toolName: name, input: call.input },
  ]),
  { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: usage(30, 20) },
];

export { MockLanguageModelV4 };

export const ask = (text: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  tools: [],
  ...extra,
});

export { WEATHER_TOOL as weatherTool } from "@yoke/testkit/contracts";
export { rejectionOf as rejection, streamCollector as collect } from "@yoke/testkit";
