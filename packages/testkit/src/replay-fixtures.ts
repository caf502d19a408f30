import { readFileSync } from "node:fs";
import { join } from "node:path";
import { YokeError } from "@yoke/protocol";
import type { ReplayExchange } from "./replay-server.js";

/**
 * Reads one recorded exchange from a fixtures folder: `<name>.sse` is a server-sent-event
 * stream served verbatim with status 200; `<name>.json` is a whole exchange
 * (`{ status, headers, body }` or `{ sse }`). `overrides` adds `cut`, `hang`, `path`, ….
 *
 * @example
 * ```ts
 * const fixtures = new URL("./__fixtures__/", import.meta.url).pathname;
 * server.enqueue(readReplayFixture(fixtures, "text.sse"), readReplayFixture(fixtures, "error-429.json"));
 * server.enqueue(readReplayFixture(fixtures, "stream-cut.sse", { cut: true }));
 * ```
 */
export function readReplayFixture(dir: string, file: string, overrides: Partial<ReplayExchange> = {}): ReplayExchange {
  const text = readFileSync(join(dir, file), "utf8");
  if (file.endsWith(".sse")) return { sse: text, ...overrides };
  if (file.endsWith(".json")) return { ...(JSON.parse(text) as ReplayExchange), ...overrides };
  throw new YokeError("CONFIG_INVALID", `a replay fixture is a .sse or .json file, not ${file}`, { details: { file } });
}
