import { BUDGET_DIMENSIONS } from "@yoke/protocol";
import type { Amounts } from "./amounts.js";
import type { BudgetReport, DimensionRow } from "./report.js";

/** Micro-units as a decimal amount of the currency: 4500 → "0.004500". */
function money(microUnits: number): string {
  const whole = Math.floor(microUnits / 1_000_000);
  return `${whole}.${String(microUnits - whole * 1_000_000).padStart(6, "0")}`;
}

function table(header: string[], body: string[][]): string[] {
  const widths = header.map((cell, column) => Math.max(cell.length, ...body.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join("  ")
      .trimEnd();
  return [line(header), ...body.map(line)];
}

const dash = (value: number | null): string => (value === null ? "-" : String(value));

function amountsText(amounts: Amounts): string {
  const parts = BUDGET_DIMENSIONS.filter((dimension) => amounts[dimension] !== undefined).map((dimension) => `${dimension} ${amounts[dimension]}`);
  return parts.length === 0 ? "nothing" : parts.join(", ");
}

/**
 * A budget report as a plain-text table: the headline (cost per verified success), then per
 * dimension (limit, charged, held, remaining), per attribution kind, discarded work and
 * overshoots. Spend is shown in the pricing currency (micro-units / 1,000,000).
 *
 * @example
 * ```ts
 * console.log(formatBudgetReport(budgetReport(events)));
 * // Budget: 1 task, 1 verified success
 * // Cost per verified success: USD 0.004500 (4500 micro-units), 1500 tokens
 * // …
 * ```
 */
export function formatBudgetReport(report: BudgetReport): string {
  const currency = report.currency ?? "spend";
  const lines = [
    `Budget: ${report.tasks} task${report.tasks === 1 ? "" : "s"}, ${report.verifiedSuccesses} verified success${report.verifiedSuccesses === 1 ? "" : "es"}`,
  ];
  lines.push(
    report.costPerVerifiedSuccess === null
      ? `Cost per verified success: n/a (no verified success; ${currency} ${money(report.spend)} spent)`
      : `Cost per verified success: ${currency} ${money(report.costPerVerifiedSuccess)} (${report.costPerVerifiedSuccess} micro-units), ${report.tokensPerVerifiedSuccess} tokens`,
  );
  lines.push("");
  const dimensionRows = (rows: readonly DimensionRow[]) =>
    rows.map((row) => [row.dimension, dash(row.limit), String(row.charged), String(row.held), dash(row.remaining)]);
  lines.push(
    ...(report.dimensions.length === 0
      ? ["(no budget dimensions)"]
      : table(["dimension", "limit", "charged", "held", "remaining"], dimensionRows(report.dimensions))),
  );
  const kinds = Object.entries(report.byKind);
  if (kinds.length > 0) {
    const columns = BUDGET_DIMENSIONS.filter((dimension) => kinds.some(([, group]) => group.charged[dimension] !== undefined));
    lines.push("");
    lines.push(
      ...table(
        ["attribution", "charges", ...columns],
        kinds.map(([kind, group]) => [kind, String(group.count), ...columns.map((dimension) => String(group.charged[dimension] ?? 0))]),
      ),
    );
  }
  lines.push("");
  lines.push(`Discarded work: ${report.discarded.count} charge${report.discarded.count === 1 ? "" : "s"} (${amountsText(report.discarded.charged)})`);
  lines.push(
    report.overshoots.length === 0
      ? "Overshoots: none"
      : `Overshoots: ${report.overshoots.map((row) => `${row.runId}/${row.reservationId} (${row.kind}) +${amountsText(row.excess)}`).join("; ")}`,
  );
  return lines.join("\n");
}
