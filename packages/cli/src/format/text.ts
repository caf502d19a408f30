import { escapeTerminal } from "./terminal.js";

/** A journal time (ms since the epoch, the writer's clock) as ISO 8601. */
export function time(at: number): string {
  return Number.isFinite(at) && at > 0 ? new Date(at).toISOString() : "-";
}

/** Spend in micro-units of `currency` (1 USD = 1,000,000), as `USD 0.001320`. */
export function money(amount: number | undefined, currency: string | undefined): string {
  if (amount === undefined) return "-";
  return `${currency ?? ""} ${(amount / 1_000_000).toFixed(6)}`.trim();
}

/** Rows as left-aligned columns, one line each. Widths count UTF-16 units of the escaped cells, as the terminal shows them. */
export function table(rows: readonly (readonly string[])[]): string[] {
  rows = rows.map((row) => row.map(escapeTerminal));
  const widths: number[] = [];
  for (const row of rows) {
    for (const [index, cell] of row.entries()) widths[index] = Math.max(widths[index] ?? 0, cell.length);
  }
  return rows.map((row) => row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index]!))).join("  "));
}

/** JSON for `--json`: one document, newline-terminated. */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
