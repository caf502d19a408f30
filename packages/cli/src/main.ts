import type { CliIo, CommandContext } from "./cli/context.js";
import { EXIT, errorLine, exitCodeOf } from "./cli/exit-codes.js";
import { EXPORT_USAGE, exportCommand } from "./commands/export.js";
import { IMPORT_USAGE, importCommand } from "./commands/import.js";
import { REQUEST_USAGE, requestCommand } from "./commands/request.js";
import { RESUME_USAGE, resumeCommand } from "./commands/resume.js";
import { RUNS_USAGE, runsCommand } from "./commands/runs.js";
import { SHOW_USAGE, showCommand } from "./commands/show.js";
import { VERIFY_USAGE, verifyCommand } from "./commands/verify.js";
import { VIEW_USAGE, viewCommand } from "./commands/view.js";
import { defaultJournalLocation, openStore } from "./store/open-store.js";

export type { CliIo } from "./cli/context.js";

const COMMANDS: Record<string, { run: (context: CommandContext) => Promise<number>; usage: string; summary: string }> = {
  runs: { run: runsCommand, usage: RUNS_USAGE, summary: "list runs: tenant, status/outcome, turns, started, last event" },
  show: { run: showCommand, usage: SHOW_USAGE, summary: "one run: turns, model calls, actions with their states, usage and cost" },
  verify: { run: verifyCommand, usage: VERIFY_USAGE, summary: "check the hash chain of one run or all: the first bad seq and why" },
  request: { run: requestCommand, usage: REQUEST_USAGE, summary: "the exact request of a turn, rebuilt from the journal: kept, cut, omitted" },
  resume: { run: resumeCommand, usage: RESUME_USAGE, summary: "hand a run back to the harness a module builds" },
  export: { run: exportCommand, usage: EXPORT_USAGE, summary: "a run as canonical JSON, verifiable on import" },
  import: { run: importCommand, usage: IMPORT_USAGE, summary: "verify an exported run and append it to the journal" },
  view: { run: viewCommand, usage: VIEW_USAGE, summary: "open the run viewer on 127.0.0.1 and print its URL" },
};

function usage(): string {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((name) => name.length));
  return [
    "usage: yoke <command> [options]",
    "",
    ...names.map((name) => `  ${name.padEnd(width)}  ${COMMANDS[name]!.summary}`),
    "",
    "options of every command:",
    "  --journal FILE  the journal (default: $YOKE_JOURNAL, else ./yoke.sqlite)",
    "  --tenant T      only this tenant (runs are found in any tenant otherwise)",
    "  --json          one JSON document on stdout, for scripts",
    "",
    "exit codes: 0 ok, 1 a check failed (broken chain, request mismatch), 2 usage, 3 not found, 4 the operation failed, 70 internal error",
    "",
  ].join("\n");
}

/**
 * Runs the `yoke` command with `argv` (without node and the script) and resolves to its exit
 * code. Errors are printed as one line on stderr (`yoke: CODE: message`), never a stack.
 *
 * @example
 * ```ts
 * import { main } from "@yoke/cli";
 * const code = await main(["verify", "--journal", "runs.sqlite"], { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), isTTY: false });
 * ```
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout(usage());
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    io.stderr(`yoke: unknown command ${JSON.stringify(name)}\n${usage()}`);
    return EXIT.usage;
  }
  let drawn = false;
  const context: CommandContext = {
    args,
    io,
    open: (location, options) => openStore(location ?? defaultJournalLocation(io.env ?? process.env), options),
    progress: (text) => {
      if (!io.isTTY) return;
      io.stderr(`\r\u001b[2K${text}`);
      drawn = true;
    },
    progressDone: () => {
      if (drawn) io.stderr("\r\u001b[2K");
      drawn = false;
    },
  };
  try {
    return await command.run(context);
  } catch (error) {
    context.progressDone();
    io.stderr(errorLine(error));
    return exitCodeOf(error);
  }
}
