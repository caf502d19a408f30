import { resolve } from "node:path";
import { backupSqliteJournal } from "@yoke/journal";
import { usageError } from "../cli/exit-codes.js";
import type { CommandContext } from "../cli/context.js";
import { parse } from "../cli/parse.js";
import { defaultJournalLocation } from "../store/open-store.js";

export const BACKUP_USAGE = "yoke backup [<journal>] <dest> [--journal FILE] [--json]";

/**
 * `yoke backup <journal> <dest>`: a copy of the journal with a head witness that matches the
 * copy (`backupSqliteJournal`), taken while the journal may be written. The copy opens with
 * no flag, at `<dest>` or restored over the journal (copy `<dest>` and `<dest>-head` back
 * together). With one argument the journal is `--journal` (or the default).
 */
export async function backupCommand(context: CommandContext): Promise<number> {
  const { values, positionals } = parse(context.args, {}, { min: 1, max: 2, usage: BACKUP_USAGE });
  if (values.help) {
    context.out.lines([`usage: ${BACKUP_USAGE}`]);
    return 0;
  }
  const [first, second] = positionals as [string, string | undefined];
  const named = second === undefined ? (values.journal ?? defaultJournalLocation(context.io.env ?? process.env)) : first;
  const destination = second ?? first;
  if (second !== undefined && values.journal !== undefined && resolve(values.journal) !== resolve(first)) {
    throw usageError(`backup: the journal is named twice (${first} and --journal ${values.journal})`, BACKUP_USAGE);
  }
  const source = named.startsWith("sqlite:") ? named.slice("sqlite:".length) : named;
  const backup = await backupSqliteJournal(source, destination);
  if (values.json) {
    context.out.json({ journal: resolve(source), ...backup });
  } else {
    context.out.lines([
      `backed up ${resolve(source)}: ${backup.runs} run(s), ${backup.events} event(s)`,
      `  to ${backup.filename}`,
      `  with its head witness ${backup.headWitnessPath} (restore both together; the copy opens with no flag)`,
    ]);
  }
  return 0;
}
