/** Flattens whitespace and cuts `text` to `width` characters (an ellipsis marks the cut). */
export function clip(text: string, width = 60): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

/** A digest as people read it: its first 12 hex digits. */
export function short(digest: string): string {
  return digest.slice(0, 12);
}
