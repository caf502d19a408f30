import { type JsonValue, type SourceToolDefinition, type ToolHints, type ToolOutput, YokeError, type YokeErrorDetailsByCode } from "@yoke/protocol";

/*
 * MCP wire shapes → Yoke's: a `tools/list` entry → SourceToolDefinition, a `tools/call`
 * result → ToolOutput. Everything here came from the server: untrusted content, passed on as
 * data (the runtime labels it), never interpreted.
 */

type JsonObject = { [key: string]: JsonValue };

/** A `tools/list` entry as the SDK parsed it (only the fields read here). */
export interface McpToolLike {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown> | undefined;
  readonly annotations?:
    | {
        readonly title?: string | undefined;
        readonly readOnlyHint?: boolean | undefined;
        readonly destructiveHint?: boolean | undefined;
        readonly idempotentHint?: boolean | undefined;
        readonly openWorldHint?: boolean | undefined;
      }
    | undefined;
}

/** A content part of a `tools/call` result (only the fields read here). */
export type McpContentLike =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image" | "audio"; readonly data: string; readonly mimeType: string }
  | { readonly type: "resource_link"; readonly uri: string; readonly name: string; readonly mimeType?: string | undefined }
  | {
      readonly type: "resource";
      readonly resource: { readonly uri: string; readonly mimeType?: string | undefined; readonly text?: string; readonly blob?: string };
    }
  | { readonly type: string };

/** A `tools/call` result as the SDK parsed it. */
export interface McpCallResultLike {
  readonly content?: readonly McpContentLike[];
  readonly structuredContent?: Record<string, unknown> | undefined;
  readonly isError?: boolean | undefined;
}

function isJsonValue(value: unknown, depth = 0): value is JsonValue {
  if (depth > 256) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  if (typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((item) => item === undefined || isJsonValue(item, depth + 1));
}

/** A JSON object without `undefined` members (what the wire held). */
function jsonObject(value: Record<string, unknown>): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}

function hintsOf(tool: McpToolLike): ToolHints | undefined {
  const a = tool.annotations ?? {};
  const title = tool.title ?? a.title;
  const hints: { -readonly [K in keyof ToolHints]: ToolHints[K] } = {};
  if (title !== undefined) hints.title = title;
  if (a.readOnlyHint !== undefined) hints.readOnly = a.readOnlyHint;
  if (a.destructiveHint !== undefined) hints.destructive = a.destructiveHint;
  if (a.idempotentHint !== undefined) hints.idempotent = a.idempotentHint;
  if (a.openWorldHint !== undefined) hints.openWorld = a.openWorldHint;
  return Object.keys(hints).length > 0 ? hints : undefined;
}

function invalid(message: string, details: YokeErrorDetailsByCode["TOOL_SOURCE_INVALID"]): YokeError {
  return new YokeError("TOOL_SOURCE_INVALID", message, { details });
}

/**
 * The definitions of a `tools/list` answer (all pages). Rejects TOOL_SOURCE_INVALID on a name
 * listed twice, an empty name, or a schema that is not a JSON object.
 */
export function toolDefinitions(tools: readonly McpToolLike[], origin: string): SourceToolDefinition[] {
  const seen = new Set<string>();
  return tools.map((tool) => {
    if (typeof tool.name !== "string" || tool.name.length === 0) throw invalid(`${origin} listed a tool without a name`, { origin });
    if (seen.has(tool.name)) throw invalid(`${origin} listed the tool ${tool.name} twice`, { origin, tool: tool.name });
    seen.add(tool.name);
    for (const [field, schema] of [
      ["inputSchema", tool.inputSchema],
      ["outputSchema", tool.outputSchema],
    ] as const) {
      if (schema === undefined && field === "outputSchema") continue;
      if (typeof schema !== "object" || schema === null || Array.isArray(schema) || !isJsonValue(schema)) {
        throw invalid(`${origin} listed the tool ${tool.name} with an ${field} that is not a JSON object`, { origin, tool: tool.name, field });
      }
    }
    const hints = hintsOf(tool);
    return {
      name: tool.name,
      description: tool.description ?? "",
      inputSchema: jsonObject(tool.inputSchema),
      ...(tool.outputSchema === undefined ? {} : { outputSchema: jsonObject(tool.outputSchema) }),
      ...(hints === undefined ? {} : { hints }),
    };
  });
}

/** Bytes a base64 string decodes to. */
function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/**
 * One content part as text for the model. Text is itself; every other part becomes a one-line
 * description in brackets (the model gets no bytes it cannot read):
 * `[image image/png, 1234 bytes]`, `[audio audio/wav, 1234 bytes]`,
 * `[resource link file:///a.txt "a.txt" (text/plain)]`, an embedded text resource as
 * `[resource file:///a.txt (text/plain)]` followed by its text on the next line, an embedded
 * binary resource as `[resource file:///a.bin (application/octet-stream), 1234 bytes]`, and an
 * unknown kind as `[<type> content]`.
 */
export function describePart(part: McpContentLike): string {
  const mime = (type: string | undefined) => (type === undefined ? "" : ` (${type})`);
  switch (part.type) {
    case "text":
      return (part as { text: string }).text;
    case "image":
    case "audio": {
      const media = part as { type: string; data: string; mimeType: string };
      return `[${media.type} ${media.mimeType}, ${base64Bytes(media.data)} bytes]`;
    }
    case "resource_link": {
      const link = part as { uri: string; name: string; mimeType?: string | undefined };
      return `[resource link ${link.uri} ${JSON.stringify(link.name)}${mime(link.mimeType)}]`;
    }
    case "resource": {
      const { resource } = part as { resource: { uri: string; mimeType?: string | undefined; text?: string; blob?: string } };
      if (typeof resource.text === "string") return `[resource ${resource.uri}${mime(resource.mimeType)}]\n${resource.text}`;
      return `[resource ${resource.uri}${mime(resource.mimeType)}, ${base64Bytes(resource.blob ?? "")} bytes]`;
    }
    default:
      return `[${part.type} content]`;
  }
}

/** The text of a result's content parts, joined by newlines. */
export function resultText(result: McpCallResultLike): string {
  return (result.content ?? []).map(describePart).join("\n");
}

/**
 * A `tools/call` result as a ToolOutput: the parts' text is `content` (the structured content
 * as JSON when there are no parts), `structuredContent` is `output`. A result with
 * `isError: true` rejects TOOL_FAILED with the result's text.
 */
export function toolOutput(result: McpCallResultLike, tool: string): ToolOutput {
  const text = resultText(result);
  if (result.isError === true) {
    throw new YokeError("TOOL_FAILED", text.length > 0 ? text : `the MCP tool ${tool} reported an error without text`, {
      details: { tool, isError: true },
      retryable: false,
    });
  }
  const structured = result.structuredContent;
  if (structured === undefined) return { content: text };
  if (!isJsonValue(structured)) {
    throw new YokeError("TOOL_OUTCOME_UNKNOWN", `the MCP tool ${tool} returned structured content that is not JSON`, { details: { tool } });
  }
  const output = jsonObject(structured);
  return { content: text.length > 0 ? text : JSON.stringify(output), output };
}
