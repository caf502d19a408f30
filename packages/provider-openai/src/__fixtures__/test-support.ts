// Shared by this package's tests: a replay server with the real SDK client pointed at it.
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { afterEach } from "vitest";
import type { ModelRequest } from "@yoke/protocol";
import { createReplayServer, readReplayFixture, type ReplayExchange, type ReplayServer, type ReplayServerOptions } from "@yoke/testkit/replay";
import { createOpenAIProvider, type OpenAIProvider, type OpenAIProviderOptions } from "../index.js";

const FIXTURES = fileURLToPath(new URL("./", import.meta.url));

export const fixture = (file: string, overrides: Partial<ReplayExchange> = {}): ReplayExchange => readReplayFixture(FIXTURES, file, overrides);

export interface Replay {
  server: ReplayServer;
  provider: OpenAIProvider;
}

/**
 * A replay server serving `exchanges` (split at `serverOptions.seed`'s offsets when given), and an
 * adapter over a real SDK client aimed at it. The client asks for 5 retries: the adapter must
 * override that with none.
 */
export async function replay(
  exchanges: ReplayExchange[],
  options: Partial<OpenAIProviderOptions> = {},
  serverOptions: ReplayServerOptions = {},
): Promise<Replay> {
  const server = await createReplayServer(exchanges, serverOptions);
  const client = new OpenAI({ apiKey: "sk-test", baseURL: `${server.url}/v1`, maxRetries: 5 });
  const provider = createOpenAIProvider({ model: "gpt-5-mini", client, now: () => Date.UTC(2026, 0, 1), ...options });
  return { server, provider };
}

export const ask = (text: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  tools: [],
  ...extra,
});

export { WEATHER_TOOL as weatherTool } from "@yoke/testkit/contracts";
export { rejectionOf as rejection, streamCollector as collect } from "@yoke/testkit";

/**
 * One replay server per test: `open` closes the previous one first, and each test's server
 * is closed after it (registers an `afterEach`; call it at a test file's top level).
 */
export function replayPerTest(): (...args: Parameters<typeof replay>) => Promise<Replay> {
  let current: Replay | undefined;
  afterEach(async () => {
    await current?.server.close();
    current = undefined;
  });
  return async (...args) => {
    await current?.server.close();
    current = await replay(...args);
    return current;
  };
}
