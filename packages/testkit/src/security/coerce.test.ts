import { describe, expect, it } from "vitest";
import { coerceArguments, parametersSchema } from "./coerce.js";
import { parsePythonList } from "./python-literal.js";
import type { ToolParameter } from "./types.js";

const parameters: ToolParameter[] = [
  { name: "recipients", type: "array", items: { type: "string" }, required: true, description: "" },
  { name: "attachments", type: "array", items: { type: "object", additionalProperties: true }, required: false, nullable: true, description: "" },
  { name: "counts", type: "array", items: { type: "integer" }, required: false, nullable: true, description: "" },
  { name: "options", type: "object", required: false, nullable: true, description: "" },
  { name: "subject", type: "string", required: false, default: "", description: "" },
];

describe("list and object arguments", () => {
  it("coerce each element by the list's item type, objects as they are, and default missing optional ones", () => {
    expect(coerceArguments(parameters, { recipients: ["a@b.example"], counts: ["3", 4], options: { deep: [1] } })).toEqual({
      ok: true,
      value: { recipients: ["a@b.example"], attachments: null, counts: [3, 4], options: { deep: [1] }, subject: "" },
    });
    expect(coerceArguments(parameters, { recipients: [], attachments: [{ type: "file", file_id: "1" }] })).toMatchObject({
      ok: true,
      value: { recipients: [], attachments: [{ type: "file", file_id: "1" }] },
    });
  });

  it("reject a scalar for a list, a bad element (named by its index), a list or scalar for an object", () => {
    expect(coerceArguments(parameters, { recipients: "a@b.example" })).toEqual({
      ok: false,
      error: "1 validation error(s): recipients: Input should be a valid list",
    });
    expect(coerceArguments(parameters, { recipients: ["a", 5, "c", null] })).toEqual({
      ok: false,
      error: "1 validation error(s): recipients.1: Input should be a valid string; recipients.3: Input should be a valid string",
    });
    expect(coerceArguments(parameters, { recipients: [], attachments: ["file 1"] })).toMatchObject({
      ok: false,
      error: expect.stringContaining("attachments.0: Input should be a valid dictionary"),
    });
    expect(coerceArguments(parameters, { recipients: [], options: [1] })).toMatchObject({
      ok: false,
      error: expect.stringContaining("options: Input should be a valid dictionary"),
    });
    expect(coerceArguments(parameters, { recipients: [], counts: ["1.5"] })).toMatchObject({
      ok: false,
      error: expect.stringContaining("counts.0: Input should be a valid integer"),
    });
    expect(coerceArguments(parameters, {})).toMatchObject({ ok: false, error: expect.stringContaining("recipients: Field required") });
  });

  it("turn any string argument that is a Python list literal into that list, as upstream's executor does", () => {
    expect(coerceArguments(parameters, { recipients: "['a@b.example', \"c@d.example\"]" })).toMatchObject({
      ok: true,
      value: { recipients: ["a@b.example", "c@d.example"] },
    });
    expect(coerceArguments(parameters, { recipients: "[]", counts: "[1, 0x10, -2]" })).toMatchObject({
      ok: true,
      value: { recipients: [], counts: [1, 16, -2] },
    });
    // Whatever the parameter's type: a string parameter given a list literal then fails.
    expect(coerceArguments(parameters, { recipients: [], subject: "['x']" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("subject: Input should be a valid string"),
    });
    // Not a list literal: kept as text.
    expect(coerceArguments(parameters, { recipients: [], subject: "[draft] notes" })).toMatchObject({ ok: true, value: { subject: "[draft] notes" } });
  });

  it("show the model a list's item schema", () => {
    expect(parametersSchema(parameters).properties).toMatchObject({
      recipients: { type: "array", items: { type: "string" } },
      attachments: { type: ["array", "null"], items: { type: "object", additionalProperties: true } },
      options: { type: ["object", "null"] },
    });
  });
});

describe("Python list literals", () => {
  it("read what ast.literal_eval reads with a JSON form", () => {
    expect(parsePythonList("['a', \"b\", 'it\\'s', r'\\d', u'\\u00e9\\x41\\n', '''x''']")).toEqual(["a", "b", "it's", "\\d", "éA\n", "x"]);
    expect(parsePythonList("[1, -2.5, 1e3, 0b11, 0o7, 1_000, True, False, None]")).toEqual([1, -2.5, 1000, 3, 7, 1000, true, false, null]);
    expect(parsePythonList("  [('a', 1), (), ('b',), ('c'), {'k': [1]}, [],]  \n")).toEqual([["a", 1], [], ["b"], "c", { k: [1] }, []]);
    expect(parsePythonList("['a' 'b', 'c'\n  'd']")).toEqual(["ab", "cd"]);
  });

  it("give nothing for what is not a list literal", () => {
    for (const text of [
      "hello",
      "('a', 'b')",
      "{'a': 1}",
      "[a]",
      "[1, 2",
      "['a'] x",
      "[{1, 2}]",
      "[b'x']",
      "[1j]",
      "['unterminated]",
      "\n['a']",
      "[1 2]",
      "[,]",
      "[{1: 'a'}]",
    ]) {
      expect(parsePythonList(text), text).toBeUndefined();
    }
  });
});
