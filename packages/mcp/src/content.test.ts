// What the model gets from an MCP result and listing, on the documented MCP content shapes.
import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { describePart, toolDefinitions, toolOutput } from "./content.js";
import { loadSdk } from "./sdk.js";

describe("results", () => {
  it("joins text parts and describes every other part in one bracketed line", () => {
    const png = Buffer.alloc(70, 1).toString("base64");
    const output = toolOutput(
      {
        content: [
          { type: "text", text: "first" },
          { type: "image", data: png, mimeType: "image/png" },
          { type: "audio", data: Buffer.alloc(3).toString("base64"), mimeType: "audio/wav" },
          { type: "resource_link", uri: "file:///a.txt", name: "a.txt", mimeType: "text/plain" },
          { type: "resource", resource: { uri: "file:///b.md", mimeType: "text/markdown", text: "# b" } },
          { type: "resource", resource: { uri: "file:///c.bin", blob: Buffer.alloc(5).toString("base64") } },
          { type: "hologram" },
          { type: "text", text: "last" },
        ],
      },
      "t",
    );
    expect(output).toEqual({
      content: [
        "first",
        "[image image/png, 70 bytes]",
        "[audio audio/wav, 3 bytes]",
        '[resource link file:///a.txt "a.txt" (text/plain)]',
        "[resource file:///b.md (text/markdown)]\n# b",
        "[resource file:///c.bin, 5 bytes]",
        "[hologram content]",
        "last",
      ].join("\n"),
    });
    expect(describePart({ type: "image", data: "", mimeType: "image/gif" })).toBe("[image image/gif, 0 bytes]");
  });

  it("structured content is the output; with no parts its JSON is the content", () => {
    expect(toolOutput({ content: [{ type: "text", text: "22°C" }], structuredContent: { temperature: 22 } }, "t")).toEqual({
      content: "22°C",
      output: { temperature: 22 },
    });
    expect(toolOutput({ content: [], structuredContent: { temperature: 22 } }, "t")).toEqual({ content: '{"temperature":22}', output: { temperature: 22 } });
    expect(toolOutput({ content: [] }, "t")).toEqual({ content: "" });
  });

  it("isError is TOOL_FAILED with the result's text, never retryable", () => {
    const fail = (): unknown => toolOutput({ content: [{ type: "text", text: "no such city" }], isError: true }, "weather");
    expect(fail).toThrow(expect.objectContaining({ code: "TOOL_FAILED", message: "no such city", retryable: false }));
    expect(() => toolOutput({ isError: true }, "weather")).toThrow(/weather reported an error without text/);
  });
});

describe("listings", () => {
  it("maps annotations and the tool's title to hints, and leaves hints out when there are none", () => {
    const [annotated, bare] = toolDefinitions(
      [
        {
          name: "delete_file",
          title: "Delete",
          description: "Deletes a file.",
          inputSchema: { type: "object", properties: { path: { type: "string" } } },
          outputSchema: { type: "object" },
          annotations: { title: "ignored when the tool has a title", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
        },
        { name: "bare", inputSchema: { type: "object" } },
      ],
      "test server",
    );
    expect(annotated).toEqual({
      name: "delete_file",
      description: "Deletes a file.",
      inputSchema: { type: "object", properties: { path: { type: "string" } } },
      outputSchema: { type: "object" },
      hints: { title: "Delete", readOnly: false, destructive: true, idempotent: true, openWorld: false },
    });
    expect(bare).toEqual({ name: "bare", description: "", inputSchema: { type: "object" } });
    expect(toolDefinitions([{ name: "a", inputSchema: { type: "object" }, annotations: { title: "A" } }], "s")[0]!.hints).toEqual({ title: "A" });
  });

  it("refuses a name twice, an empty name and a schema that is not a JSON object (TOOL_SOURCE_INVALID)", () => {
    const invalid = expect.objectContaining({ code: "TOOL_SOURCE_INVALID" });
    expect(() =>
      toolDefinitions(
        [
          { name: "a", inputSchema: {} },
          { name: "a", inputSchema: {} },
        ],
        "s",
      ),
    ).toThrow(invalid);
    expect(() => toolDefinitions([{ name: "", inputSchema: {} }], "s")).toThrow(invalid);
    expect(() => toolDefinitions([{ name: "a", inputSchema: [] as unknown as Record<string, unknown> }], "s")).toThrow(invalid);
    expect(() => toolDefinitions([{ name: "a", inputSchema: { type: "object" }, outputSchema: { n: Number.NaN } }], "s")).toThrow(invalid);
  });
});

describe("the SDK is an optional peer", () => {
  it("without it, loading rejects DEPENDENCY_MISSING naming the package", async () => {
    const missing = (specifier: string) => Promise.reject(Object.assign(new Error(`Cannot find package '${specifier}'`), { code: "ERR_MODULE_NOT_FOUND" }));
    const error = await loadSdk(missing).catch((e: unknown) => e);
    expect(YokeError.hasCode(error, "DEPENDENCY_MISSING")).toBe(true);
    expect((error as YokeError).details.package).toBe("@modelcontextprotocol/sdk");
  });

  it("with it, loads the client, both transports and the schemas", async () => {
    const sdk = await loadSdk();
    expect(typeof sdk.Client).toBe("function");
    expect(typeof sdk.StdioClientTransport).toBe("function");
    expect(typeof sdk.StreamableHTTPClientTransport).toBe("function");
    expect(Object.keys(sdk.getDefaultEnvironment()).every((name) => ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"].includes(name))).toBe(true);
  });
});
