// Shared by this package's tests: a replay server with the real SDK client pointed at it.
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import type { ModelRequest } from "@yoke/protocol";
import { createReplayServer, readReplayFixture, type ReplayExchange, type ReplayServer, type ReplayServerOptions } from "@yoke/testkit/replay";
import { createAnthropicProvider, type AnthropicProvider, type AnthropicProviderOptions } from "../index.js";

const FIXTURES = fileURLToPath(new URL("./", import.meta.url));

export const fixture = (file: string, overrides: Partial<ReplayExchange> = {}): ReplayExchange => readReplayFixture(FIXTURES, file, overrides);

export interface Replay {
  server: ReplayServer;
  provider: AnthropicProvider;
}

/**
 * A replay server serving `exchanges`, and an adapter over a real SDK client aimed at it.
 * The client asks for 5 retries: the adapter must override that with none. `serverOptions.seed`
 * splits every body into writes at seeded byte offsets.
 */
export async function replay(
  exchanges: ReplayExchange[],
  options: Partial<AnthropicProviderOptions> = {},
  serverOptions: ReplayServerOptions = {},
): Promise<Replay> {
  const server = await createReplayServer(exchanges, serverOptions);
  const client = new Anthropic({ apiKey: "sk-ant-test", baseURL: server.url, maxRetries: 5 });
  const provider = createAnthropicProvider({ model: "claude-sonnet-4-6", client, now: () => Date.UTC(2026, 0, 1), ...options });
  return { server, provider };
}

export const ask = (text: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  tools: [],
  ...extra,
});

export { WEATHER_TOOL as weatherTool } from "@yoke/testkit/contracts";
export { rejectionOf as rejection, streamCollector as collect } from "@yoke/testkit";
