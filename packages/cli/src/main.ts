import type { CliIo, CommandContext } from "./cli/context.js";
import { EXIT, errorLine, exitCodeOf } from "./cli/exit-codes.js";
import { json } from "./format/text.js";
import { escapeTerminal, terminalLines } from "./format/terminal.js";

export type { CliIo } from "./cli/context.js";

type Command = (context: CommandContext) => Promise<number>;

// Each command is loaded when it runs: `yoke --help` or `yoke runs` never loads the runtime.
const COMMANDS: Record<string, { load: () => Promise<Command>; summary: string }> = {
  runs: { load: async () => (await import("./commands/runs.js")).runsCommand, summary: "list runs: tenant, status/outcome, turns, started, last event" },
  releases: {
    load: async () => (await import("./commands/releases.js")).releasesCommand,
    summary: "which runs are pinned to which release, and which are still in flight",
  },
  sessions: {
    load: async () => (await import("./commands/sessions.js")).sessionsCommand,
    summary: "list sessions (runs sharing a conversation): runs, first and last time, last outcome",
  },
  show: {
    load: async () => (await import("./commands/show.js")).showCommand,
    summary: "one run: turns, model calls, actions with their states, usage and cost; or a session's runs",
  },
  verify: {
    load: async () => (await import("./commands/verify.js")).verifyCommand,
    summary: "check the hash chain of one run or all: the first bad seq and why",
  },
  request: {
    load: async () => (await import("./commands/request.js")).requestCommand,
    summary: "the exact request of a turn, rebuilt from the journal: kept, cut, omitted",
  },
  resume: { load: async () => (await import("./commands/resume.js")).resumeCommand, summary: "hand a run back to the harness a module builds" },
  replay: {
    load: async () => (await import("./commands/replay.js")).replayCommand,
    summary: "re-drive a recorded run through the code a harness module builds; name the first event that differs",
  },
  approve: {
    load: async () => (await import("./commands/decide.js")).approveCommand,
    summary: "grant an approval a run waits for (journaled under the run's lease)",
  },
  deny: {
    load: async () => (await import("./commands/decide.js")).denyCommand,
    summary: "deny an approval a run waits for, with the reason the model is told",
  },
  export: { load: async () => (await import("./commands/export.js")).exportCommand, summary: "a run as canonical JSON, verifiable on import" },
  import: { load: async () => (await import("./commands/import.js")).importCommand, summary: "verify an exported run and append it to the journal" },
  backup: {
    load: async () => (await import("./commands/backup.js")).backupCommand,
    summary: "copy a journal and a head witness that matches the copy, while it is written",
  },
  worker: {
    load: async () => (await import("./commands/worker.js")).workerCommand,
    summary: "resume runs whose owner is gone (crashed, lease expired) with a harness module",
  },
  view: { load: async () => (await import("./commands/view.js")).viewCommand, summary: "open the run viewer on 127.0.0.1 and print its URL" },
};

function usage(): readonly string[] {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((name) => name.length));
  return [
    "usage: yoke <command> [options]",
    "",
    ...names.map((name) => `  ${name.padEnd(width)}  ${COMMANDS[name]!.summary}`),
    "",
    "options of every command:",
    "  --journal FILE  the journal (default: $YOKE_JOURNAL, else ./yoke.sqlite)",
    "  --key-file F    keys of a keyed journal, JSON { keys: [{ keyId, key (base64), tenantId? }] } (default: $YOKE_JOURNAL_KEY_FILE)",
    "  --tenant T      only this tenant (runs are found in any tenant otherwise)",
    "  --adopt-witness accept the journal as it is and write its head witness anew (a copy made with cp, a restored older backup)",
    "  --new-journal   start a new journal where the database was deleted (the old head witness is moved aside, never deleted)",
    "  --json          one JSON document on stdout, for scripts",
    "",
    "exit codes: 0 ok, 1 a check failed (broken chain, request mismatch), 2 usage, 3 not found, 4 the operation failed, 70 internal error",
  ];
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
    io.stdout(terminalLines(usage()));
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    io.stderr(terminalLines([`yoke: unknown command ${JSON.stringify(name)}`, ...usage()]));
    return EXIT.usage;
  }
  let drawn = false;
  const { stdout: _stdout, stderr: _stderr, ...environment } = io;
  const context: CommandContext = {
    args,
    io: environment,
    out: {
      lines: (lines) => io.stdout(terminalLines(lines)),
      json: (value) => io.stdout(json(value)),
      exact: (text) => io.stdout(text),
    },
    open: async (location, options) => {
      const { defaultJournalLocation, openStore } = await import("./store/open-store.js");
      const { keyFileOf, readKeyFile } = await import("./store/key-file.js");
      const env = io.env ?? process.env;
      const { witnessFlagOf, witnessNotice } = await import("./store/witness-flags.js");
      const keyFile = keyFileOf(args, env);
      const witness = witnessFlagOf(args);
      const journal = await openStore(location ?? defaultJournalLocation(env), {
        ...options,
        ...(keyFile === undefined ? {} : { keys: readKeyFile(keyFile) }),
        ...(witness === undefined ? {} : { witness }),
      });
      if (witness !== undefined) io.stderr(terminalLines([witnessNotice(witness, journal)]));
      return journal;
    },
    progress: (text) => {
      if (!io.isTTY) return;
      io.stderr(`\r\u001b[2K${escapeTerminal(text)}`);
      drawn = true;
    },
    log: (line) => io.stderr(line),
    progressDone: () => {
      if (drawn) io.stderr("\r\u001b[2K");
      drawn = false;
    },
  };
  try {
    return await (await command.load())(context);
  } catch (error) {
    context.progressDone();
    io.stderr(errorLine(error));
    return exitCodeOf(error);
  }
}
