/**
 * The run viewer: a read-only page over a journal, served on 127.0.0.1 by `yoke view`.
 */
export { startViewer, VIEWER_CSP, VIEWER_HOST } from "./server.js";
export type { RunningViewer, ViewerOptions } from "./server.js";
