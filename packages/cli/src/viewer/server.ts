import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { JournalV1 } from "@yoke/protocol";
import { YokeError } from "@yoke/protocol";
import { PAGE_CSS } from "./assets/page-css.js";
import { PAGE_HTML } from "./assets/page-html.js";
import { PAGE_JS } from "./assets/page-js.js";
import type { TenantListing } from "../inspect/list-runs.js";
import { boundedBody } from "./bounded-json.js";
import { createViewerData, type ViewerData } from "./viewer-data.js";

/** The only host the viewer binds: it serves journal contents, so never beyond this machine. */
export const VIEWER_HOST = "127.0.0.1";

/** Options of {@link startViewer}. */
export interface ViewerOptions {
  /**
   * The journal to read (any store). The viewer only reads it; closing it stays the caller's job.
   * To list every tenant's runs the journal must also name its tenants (`tenants()`, as the CLI's
   * `openStore` journals do).
   */
  readonly journal: JournalV1 & Partial<TenantListing>;
  /** Only "127.0.0.1" is accepted (the default); any other host is CONFIG_INVALID. */
  readonly host?: string;
  /** The port to listen on; 0 (the default) takes any free port. */
  readonly port?: number;
  /** A run to open first: the returned URL points at it. */
  readonly runId?: string;
}

/** A running viewer: where to open it, and how to stop it. */
export interface RunningViewer {
  /** `http://127.0.0.1:<port>/`, with `#/run/<tenant>/<run>` when `runId` was given. */
  readonly url: string;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * The Content-Security-Policy of every response: scripts and styles only from the viewer's own
 * files (no inline script, no eval), no frames, no forms, fetches only to the viewer itself. A
 * second line behind the page's rule of rendering journal data as text only.
 */
export const VIEWER_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const ASSETS: Readonly<Record<string, { readonly type: string; readonly body: string }>> = {
  "/": { type: "text/html; charset=utf-8", body: PAGE_HTML },
  "/index.html": { type: "text/html; charset=utf-8", body: PAGE_HTML },
  "/viewer.js": { type: "text/javascript; charset=utf-8", body: PAGE_JS },
  "/viewer.css": { type: "text/css; charset=utf-8", body: PAGE_CSS },
};

/**
 * Starts the read-only run viewer: a small HTTP server on 127.0.0.1 serving one page and a JSON
 * API over `journal` (runs list, one run's inspected view with its chain verification, raw
 * events page by page, one event's text slice by slice). No answer is larger than
 * MAX_RESPONSE_BYTES (1 MiB): pages end before it, and what still does not fit is sent cut
 * (`cut: true`), with the whole of an event at `/api/runs/<tenant>/<run>/events/<seq>?offset=N`. It answers GET (and HEAD) only; anything else is 405. Journal contents
 * reach the page as JSON and are shown as text, never as HTML.
 *
 * @example
 * ```ts
 * import { createSqliteJournal } from "@yoke/journal";
 * import { startViewer } from "@yoke/cli";
 *
 * const journal = await createSqliteJournal({ filename: "journal.sqlite" });
 * const viewer = await startViewer({ journal });
 * console.log(`open ${viewer.url}`);
 * // later
 * await viewer.close();
 * await journal.close();
 * ```
 */
export async function startViewer(options: ViewerOptions): Promise<RunningViewer> {
  const host = options.host ?? VIEWER_HOST;
  if (host !== VIEWER_HOST) {
    throw new YokeError("CONFIG_INVALID", `the viewer binds ${VIEWER_HOST} only (it serves journal contents); got host ${JSON.stringify(host)}`, {
      details: { option: "host", host },
    });
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new YokeError("CONFIG_INVALID", `the viewer's port must be an integer from 0 to 65535; got ${String(port)}`, { details: { option: "port", port } });
  }
  const data = createViewerData(options.journal);
  const server = createServer((request, response) => {
    handle(data, request, response).catch((error: unknown) => sendError(response, error));
  });
  await listen(server, port);
  const address = server.address() as AddressInfo;
  const base = `http://${VIEWER_HOST}:${address.port}/`;
  let url = base;
  if (options.runId !== undefined) {
    let scope: { tenantId: string; runId: string };
    try {
      scope = await data.findRun(options.runId);
    } catch (error) {
      await closeServer(server);
      throw error;
    }
    url = `${base}#/run/${encodeURIComponent(scope.tenantId)}/${encodeURIComponent(scope.runId)}`;
  }
  return { url, close: () => closeServer(server) };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) =>
      reject(new YokeError("CONFIG_INVALID", `the viewer could not listen on ${VIEWER_HOST}:${port}: ${error.message}`, { cause: error }));
    server.once("error", onError);
    server.listen({ host: VIEWER_HOST, port, exclusive: true }, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function handle(data: ViewerData, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const method = request.method ?? "GET";
  // Nothing the viewer serves reads a request body: drain one, so a kept-alive socket stays usable.
  request.resume();
  if (method !== "GET" && method !== "HEAD") {
    send(
      response,
      405,
      "application/json; charset=utf-8",
      JSON.stringify({ error: { code: "METHOD_NOT_ALLOWED", message: "the viewer is read-only: GET only" } }),
      {
        allow: "GET, HEAD",
        connection: "close",
      },
    );
    return;
  }
  // A page on another origin could point a name it controls at 127.0.0.1 (DNS rebinding): answer
  // only requests addressed to this machine by name or loopback address.
  if (!loopbackHost(request.headers.host)) {
    send(
      response,
      421,
      "application/json; charset=utf-8",
      JSON.stringify({ error: { code: "MISDIRECTED", message: "the viewer answers 127.0.0.1 and localhost only" } }),
    );
    return;
  }
  const url = new URL(request.url ?? "/", `http://${VIEWER_HOST}`);
  const asset = ASSETS[url.pathname];
  if (asset !== undefined) {
    send(response, 200, asset.type, asset.body, {}, method === "HEAD");
    return;
  }
  const route = apiRoute(url.pathname);
  if (route === undefined) {
    send(response, 404, "application/json; charset=utf-8", JSON.stringify({ error: { code: "NOT_FOUND", message: `no such page: ${url.pathname}` } }));
    return;
  }
  let body: unknown;
  if (route.kind === "runs") body = { runs: await data.runs() };
  else if (route.kind === "run") body = await data.run(route.scope);
  else if (route.kind === "turns") body = await data.turns(route.scope, intParam(url, "from", 0));
  else if (route.kind === "event") body = await data.eventText(route.scope, route.seq, intParam(url, "offset", 0));
  else body = await data.events(route.scope, intParam(url, "from", 0), intParam(url, "limit", 200));
  // Every answer passes the one bound (MAX_RESPONSE_BYTES), whatever produced it.
  send(response, 200, "application/json; charset=utf-8", boundedBody(body), {}, method === "HEAD");
}

type ApiRoute =
  | { readonly kind: "runs" }
  | { readonly kind: "run"; readonly scope: { tenantId: string; runId: string } }
  | { readonly kind: "turns"; readonly scope: { tenantId: string; runId: string } }
  | { readonly kind: "events"; readonly scope: { tenantId: string; runId: string } }
  | { readonly kind: "event"; readonly scope: { tenantId: string; runId: string }; readonly seq: number };

function apiRoute(pathname: string): ApiRoute | undefined {
  if (pathname === "/api/runs") return { kind: "runs" };
  const match = /^\/api\/runs\/([^/]+)\/([^/]+)(?:\/(turns|events)(?:\/(0|[1-9]\d{0,14}))?)?$/.exec(pathname);
  if (match === null) return undefined;
  let scope: { tenantId: string; runId: string };
  try {
    scope = { tenantId: decodeURIComponent(match[1]!), runId: decodeURIComponent(match[2]!) };
  } catch {
    return undefined;
  }
  if (match[4] !== undefined) return match[3] === "events" ? { kind: "event", scope, seq: Number(match[4]) } : undefined;
  return { kind: match[3] === "turns" ? "turns" : match[3] === "events" ? "events" : "run", scope };
}

function intParam(url: URL, name: string, fallback: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new YokeError("CONFIG_INVALID", `query parameter ${name} must be a non-negative integer`, { details: { parameter: name, value: raw } });
  }
  return value;
}

function loopbackHost(header: string | undefined): boolean {
  if (header === undefined) return true; // HTTP/1.0 clients send none; the socket is loopback-only anyway
  const host = header.replace(/:\d+$/, "").toLowerCase();
  return host === VIEWER_HOST || host === "localhost" || host === "[::1]";
}

function send(response: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}, headOnly = false): void {
  const bytes = Buffer.from(body, "utf8");
  response.writeHead(status, {
    "content-type": type,
    "content-length": String(bytes.length),
    "content-security-policy": VIEWER_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "cache-control": "no-store",
    ...headers,
  });
  response.end(headOnly ? undefined : bytes);
}

function sendError(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const yoke = YokeError.isInstance(error) ? error : undefined;
  const status = yoke?.code === "RUN_NOT_FOUND" ? 404 : yoke?.code === "CONFIG_INVALID" ? 400 : 500;
  const body = yoke ? { code: yoke.code, message: yoke.message } : { code: "INTERNAL", message: "the viewer failed to read the journal" };
  send(response, status, "application/json; charset=utf-8", JSON.stringify({ error: body }));
}
