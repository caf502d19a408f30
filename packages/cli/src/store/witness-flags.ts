import { parseArgs } from "node:util";
import { usageError } from "../cli/exit-codes.js";
import type { CliJournal } from "./open-store.js";

/**
 * The head-witness way out a command line asks for: `--adopt-witness` (accept the journal as
 * it is) or `--new-journal` (start over where the database was deleted); undefined for neither.
 * Both at once is a usage error. The command's own parse checks the rest of its arguments.
 */
export function witnessFlagOf(args: readonly string[]): "adopt" | "new" | undefined {
  const { values } = parseArgs({
    args: [...args],
    options: { "adopt-witness": { type: "boolean" }, "new-journal": { type: "boolean" } },
    strict: false,
    allowPositionals: true,
  });
  const adopt = values["adopt-witness"] === true;
  const fresh = values["new-journal"] === true;
  if (adopt && fresh) throw usageError("pass --adopt-witness or --new-journal, not both");
  return adopt ? "adopt" : fresh ? "new" : undefined;
}

/** The line (stderr) that says what `--adopt-witness` or `--new-journal` did, and where a replaced witness went. */
export function witnessNotice(witness: "adopt" | "new", journal: Pick<CliJournal, "location" | "headWitnessPath" | "headWitnessSetAside">): string {
  const aside = journal.headWitnessSetAside;
  if (witness === "new") {
    return `yoke: started a new journal at ${journal.location}${aside === null ? "" : `; the old head witness, which names the lost runs, is at ${aside}`}`;
  }
  return `yoke: accepted ${journal.location} as it is; its head witness is ${journal.headWitnessPath ?? "none"}${aside === null ? "" : `; the one it replaced is at ${aside}`}`;
}
