/**
 * @yoke/testkit/replay — a loopback HTTP server that replays recorded wire traffic (JSON
 * bodies and server-sent-event streams, byte for byte) to a real provider SDK, split into
 * separately flushed writes at seeded offsets, counting every request.
 * Node only (`node:http`); no dependencies.
 */
export { createReplayServer, encodeSse } from "./replay-server.js";
export type { ReplayExchange, ReplayRequest, ReplayServer, ReplayServerOptions, ReplaySseEvent } from "./replay-server.js";
export { readReplayFixture } from "./replay-fixtures.js";
export { exchangeSeed, isTrickyOffset, replaySplitOffsets, seededRandom } from "./replay-split.js";
