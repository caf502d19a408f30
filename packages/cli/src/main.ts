/** Where the CLI writes and what it reads: the process's streams by default, buffers in tests. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly isTTY: boolean;
}

/**
 * Runs the `yoke` command with `argv` (without node and the script) and resolves to its exit code.
 *
 * @example
 * ```ts
 * import { main } from "@yoke/cli";
 * const code = await main(["--help"], { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), isTTY: false });
 * ```
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "help") {
    io.stdout("usage: yoke <command> [options]\n");
    return 0;
  }
  io.stderr(`yoke: unknown command ${JSON.stringify(argv[0])}\n`);
  return 2;
}
