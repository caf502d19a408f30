// A test fails on stray console output: output nobody asserts on is output nobody reads.
import { afterEach, beforeEach, expect, vi } from "vitest";

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
