// Progress lines: drawn on stderr (and cleared) when it is a terminal, never otherwise, so
// scripts and pipes get clean output. main() is the binary's body, given a TTY flag.
import { afterAll, expect, it } from "vitest";
import { main } from "../src/main.ts";
import { completedRun, largeRun, removeJournals, tamperedRun } from "./support/journals.ts";

afterAll(removeJournals);

async function capture(argv: string[], isTTY: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), isTTY });
  return { code, stdout, stderr };
}

it("verify draws 'verifying i/n' on a TTY and clears it; nothing on stderr otherwise", async () => {
  const { file } = await completedRun();
  const tty = await capture(["verify", "--journal", file], true);
  expect(tty.code).toBe(0);
  expect(tty.stderr).toBe("\r\u001b[2Kverifying 1/1: run_cli\r\u001b[2K");
  const piped = await capture(["verify", "--journal", file], false);
  expect(piped.stderr).toBe("");
  expect(piped.stdout).toBe(tty.stdout);
});

it("show and export of a 10,000-event run report events read on a TTY", async () => {
  const large = await largeRun();
  const shown = await capture(["show", "run_cli", "--journal", large.file], true);
  expect(shown.stderr).toContain("\r\u001b[2Kreading run_cli: 10000 events");
  expect(shown.stderr.endsWith("\r\u001b[2K")).toBe(true);
  const exported = await capture(["export", "run_cli", "--journal", large.file], true);
  expect(exported.stderr).toContain("\r\u001b[2Kexporting run_cli: 10000 events read");
}, 120_000);

it("a failing command clears its progress line before the error", async () => {
  const tampered = await tamperedRun();
  const result = await capture(["export", "run_cli", "--journal", tampered.file], true);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/^yoke: JOURNAL_CHAIN_BROKEN: run run_cli cannot be exported/);
});
