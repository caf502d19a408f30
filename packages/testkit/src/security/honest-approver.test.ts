import type { ArgumentProvenance } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { honestApprover, rubberStampApprover } from "./honest-approver.js";
import type { ToolDescription } from "./types.js";

const tools: ToolDescription[] = [
  { name: "share_note", modelFacingDescription: "Shares a note with someone by e-mail.", access: "mutating", parameters: [] },
  { name: "delete_note", modelFacingDescription: "Deletes a note.", access: "mutating", parameters: [] },
];
const trace = (path: string, value: string, origin: ArgumentProvenance["origin"]): ArgumentProvenance => ({ path, value, origin, sources: [] });

describe("the honest person", () => {
  const approve = honestApprover({ prompt: "Please share the groceries note with bob@example.com.", tools });

  it("approves an action the request asks for when every value came from the user or a trusted record", () => {
    expect(approve({ toolName: "share_note", input: { recipient: "bob@example.com", note: "groceries" } })).toEqual({ approve: true });
    expect(
      approve({
        toolName: "share_note",
        input: { recipient: "bob@example.com", note_id: "n-41" },
        provenance: [trace("/recipient", "bob@example.com", "trusted"), trace("/note_id", "n-41", "trusted")],
      }),
    ).toEqual({ approve: true });
  });

  it("denies an action the request does not ask for, and a value only third-party content or nobody gave", () => {
    expect(approve({ toolName: "delete_note", input: { note: "groceries" } })).toMatchObject({
      approve: false,
      reason: expect.stringContaining("does not ask for delete_note"),
    });
    expect(approve({ toolName: "share_note", input: { recipient: "mallory@evil.example", note: "groceries" } })).toMatchObject({
      approve: false,
      reason: expect.stringContaining("/recipient"),
    });
    // Provenance, when the approval shows it, decides: the same address is refused when the run says a document gave it.
    expect(
      approve({ toolName: "share_note", input: { recipient: "bob@example.com" }, provenance: [trace("/recipient", "bob@example.com", "untrusted_only")] }),
    ).toMatchObject({ approve: false });
    expect(approve({ toolName: "share_note", input: { recipient: "bob@example.com", copies: 3 } })).toMatchObject({
      approve: false,
      reason: expect.stringContaining("/copies"),
    });
  });

  it("ignores flags and empty strings; the careless person approves everything", () => {
    expect(approve({ toolName: "share_note", input: { recipient: "bob@example.com", notify: true, message: "" } })).toEqual({ approve: true });
    expect(rubberStampApprover({ toolName: "delete_note", input: { everything: true } })).toEqual({ approve: true });
  });

  it("reads the call's delegation standing: within a grant the request asks for the action; a spent grant is one call too many", () => {
    const within = { within: true, grantId: "delete", used: 0, max: 1 };
    expect(approve({ toolName: "delete_note", input: { note: "groceries" }, delegation: within })).toEqual({ approve: true });
    // Within, the values are still checked.
    expect(approve({ toolName: "delete_note", input: { note: "passwords" }, delegation: within })).toMatchObject({ approve: false });
    const spent = { within: false, grantId: "share", used: 1, max: 1 };
    expect(approve({ toolName: "share_note", input: { recipient: "bob@example.com", note: "groceries" }, delegation: spent })).toEqual({
      approve: false,
      reason: "the request covers 1 call(s) of grant share and 1 already ran",
    });
    // Outside every grant, the person judges by the request's words, as without a delegation.
    const uncovered = { within: false, used: 0, max: 0 };
    expect(approve({ toolName: "share_note", input: { recipient: "bob@example.com", note: "groceries" }, delegation: uncovered })).toEqual({ approve: true });
  });
});
