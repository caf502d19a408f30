/**
 * @yoke/testkit/replay — a loopback HTTP server that replays recorded wire traffic (JSON
 * bodies and server-sent-event streams) to a real provider SDK, counting every request.
 * Node only (`node:http`); no dependencies.
 */
export { createReplayServer, encodeSse } from "./replay-server.js";
export type { ReplayExchange, ReplayRequest, ReplayServer, ReplaySseEvent } from "./replay-server.js";
export { readReplayFixture } from "./replay-fixtures.js";
