import type { UserPart } from "@yoke/protocol";

/** A user part as one line of text: its text, or `[image image/png]` for an image or file. */
export function partText(part: UserPart): string {
  return part.type === "text" ? part.text : `[${part.type} ${part.mediaType}]`;
}
