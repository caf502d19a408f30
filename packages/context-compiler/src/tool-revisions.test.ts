// A run's pinned tools: the manifest records each offered tool's registry revision, and the
// request bytes do not depend on it.
import { describe, expect, it } from "vitest";
import { createContextCompiler } from "./compiler.js";
import type { ContextInput } from "./input.js";

const config = { model: "gpt-4o", contextWindow: 128_000, maxOutputTokens: 4_096 };
const input: ContextInput = {
  revision: 1,
  task: "look a word up",
  tools: [
    { name: "lookup", description: "Look a word up.", inputSchema: { type: "object" } },
    { name: "echo", description: "Repeat the text.", inputSchema: { type: "object" } },
  ],
  remoteTools: ["lookup"],
  transcript: [],
};

describe("tool revisions in the manifest", () => {
  it("records the revision of each tool that has one, and changes no request byte", () => {
    const plain = createContextCompiler(config).compile(input);
    const pinned = createContextCompiler(config).compile({ ...input, toolRevisions: { lookup: "1".repeat(64) } });
    expect(pinned.manifest.tools.map((tool) => [tool.name, tool.revision, tool.trust])).toEqual([
      ["echo", undefined, "operator"],
      ["lookup", "1".repeat(64), "remote_tool_description"],
    ]);
    expect(plain.manifest.tools.every((tool) => !("revision" in tool))).toBe(true);
    expect(pinned.manifest.requestHash).toBe(plain.manifest.requestHash);
  });

  it("recompiles the tools when only their revisions change (a contract-only re-admission)", () => {
    const compiler = createContextCompiler(config);
    compiler.compile({ ...input, toolRevisions: { lookup: "1".repeat(64) } });
    const next = compiler.compile({ ...input, revision: 2, toolRevisions: { lookup: "2".repeat(64) } });
    expect(next.manifest.tools.find((tool) => tool.name === "lookup")?.revision).toBe("2".repeat(64));
  });
});
