// A test fails on stray console output: output nobody asserts on is output nobody reads.
import fc from "fast-check";
import { afterEach, beforeEach, expect, vi } from "vitest";
import { fcSeedFromEnv } from "./vitest-fc-seed.ts";

// Every property of the run uses the run's seed (drawn and printed once by vitest-fc-seed.ts).
const seed = fcSeedFromEnv();
if (seed !== undefined) fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });

const methods = ["log", "info", "warn", "error", "debug"] as const;
const spies: ReturnType<typeof vi.spyOn>[] = [];

beforeEach(() => {
  for (const method of methods) spies.push(vi.spyOn(console, method).mockImplementation(() => undefined));
});

afterEach(() => {
  const calls = spies.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(" ")));
  for (const spy of spies.splice(0)) spy.mockRestore();
  expect(calls, "stray console output").toEqual([]);
});
