import { createHash } from "node:crypto";
// A chat app's server in one module: node:http on the loopback, one page, and the two routes
// the AI SDK's useChat calls (DefaultChatTransport): POST /api/chat sends a message (or
// approval answers), GET /api/chat/:id/stream resumes the chat's stream after a reload.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { approvalResponsesOf, pipeUIMessageStreamToResponse, type Harness } from "@yoke/runtime";
import { CHAT_PAGE } from "./page.ts";

export interface ChatServer {
  readonly url: string;
  close(): Promise<void>;
}

export interface ChatServerOptions {
  readonly harness: Harness;
  /** Who approves or denies, as journaled with each decision. */
  readonly approver?: string;
  /** Default 0: any free port. */
  readonly port?: number;
}

/** The text of the last user message in what useChat sent. */
function lastUserText(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  const last = messages.findLast((message: { role?: unknown }) => message?.role === "user") as { parts?: { type?: unknown; text?: unknown }[] } | undefined;
  const text = last?.parts?.flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : [])).join("");
  return text === undefined || text.trim() === "" ? undefined : text;
}

async function bodyOf(request: IncomingMessage): Promise<{ id?: unknown; messages?: unknown }> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return JSON.parse(text) as { id?: unknown; messages?: unknown };
}

export async function startChatServer(options: ChatServerOptions): Promise<ChatServer> {
  const { harness } = options;
  const approver = options.approver ?? "chat-user";
  // The run each chat is on: what a reconnect resumes. (A real app keeps this with its chats.)
  const runs = new Map<string, string>();

  async function send(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { id, messages } = await bodyOf(request);
    if (typeof id !== "string") return void response.writeHead(400).end("body.id must be the chat id");
    const answers = approvalResponsesOf(messages);
    if (answers.length > 0) {
      const runId = answers[0]!.runId;
      // What the client shows already is not written again: only what follows the answers.
      const since = (await harness.getState(runId)).length;
      for (const answer of answers) {
        if (answer.approved) await harness.approve(answer.runId, answer.approvalId, { approver });
        else await harness.deny(answer.runId, answer.approvalId, { approver, reason: answer.reason ?? "denied in the chat" });
      }
      runs.set(id, runId);
      return pipeUIMessageStreamToResponse(harness.resumeStream(runId), response, { since });
    }
    const text = lastUserText(messages);
    if (text === undefined) return void response.writeHead(400).end("no user message to answer");
    // One session per chat: each message is a run, and the model sees the chat's earlier runs.
    const stream = harness.stream(text, { sessionId: sessionOf(id) });
    runs.set(id, stream.runId);
    return pipeUIMessageStreamToResponse(stream, response);
  }

  async function reconnect(chatId: string, response: ServerResponse): Promise<void> {
    const runId = runs.get(chatId);
    // 204: nothing to resume (useChat's convention).
    if (runId === undefined) return void response.writeHead(204).end();
    return pipeUIMessageStreamToResponse(harness.resumeStream(runId), response);
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const resume = /^\/api\/chat\/([^/]+)\/stream$/.exec(url.pathname);
    let handled: Promise<void>;
    if (request.method === "GET" && url.pathname === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(CHAT_PAGE);
      return;
    } else if (request.method === "POST" && url.pathname === "/api/chat") handled = send(request, response);
    else if (request.method === "GET" && resume !== null) handled = reconnect(decodeURIComponent(resume[1]!), response);
    else {
      response.writeHead(404).end();
      return;
    }
    handled.catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
      response.end(error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The session of a chat: any chat id the client picks becomes a well-formed session id, the same one every time. */
export function sessionOf(chatId: string): string {
  return `session_${createHash("sha256").update(chatId).digest("hex").slice(0, 32)}`;
}
