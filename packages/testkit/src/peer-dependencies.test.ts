// testkit's optional peers (issue 12, item 9): importing `@yoke/testkit/contracts` without
// vitest or fast-check, or `@yoke/testkit/arbitraries` without fast-check, fails with a typed
// DEPENDENCY_MISSING naming the package to install. Each case runs in a child process whose
// module resolution cannot find the package (a registerHooks resolve hook refuses it, as Node's
// resolver does when it is not installed), importing the built package through its exports map.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const packageDir = join(import.meta.dirname, "..");
let counter = 0;

/** Imports `specifier` (resolved from this package) in a child process where `missing` cannot be resolved. */
function importWithout(specifier: string, missing: readonly string[]): Record<string, unknown> {
  // Inside the package, so `@yoke/testkit/...` resolves through its own exports map (self-reference).
  const script = join(packageDir, `.peer-check-${process.pid}-${(counter += 1)}.mjs`);
  writeFileSync(
    script,
    `import { registerHooks } from "node:module";
const missing = ${JSON.stringify(missing)};
registerHooks({
  resolve(specifier, context, next) {
    if (missing.some((name) => specifier === name || specifier.startsWith(name + "/"))) {
      const error = new Error("Cannot find package '" + specifier + "'");
      error.code = "ERR_MODULE_NOT_FOUND";
      throw error;
    }
    return next(specifier, context);
  },
});
try {
  const loaded = await import(${JSON.stringify(specifier)});
  console.log(JSON.stringify({ loaded: Object.keys(loaded).sort() }));
} catch (error) {
  console.log(JSON.stringify({ name: error.name, code: error.code, message: error.message, details: error.details }));
}
`,
  );
  try {
    return JSON.parse(execFileSync(process.execPath, [script], { cwd: packageDir, encoding: "utf8" })) as Record<string, unknown>;
  } finally {
    rmSync(script, { force: true });
  }
}

describe("optional peer dependencies", () => {
  it("@yoke/testkit/contracts without vitest: DEPENDENCY_MISSING naming vitest", () => {
    const out = importWithout("@yoke/testkit/contracts", ["vitest"]);
    expect(out).toMatchObject({ name: "YokeError", code: "DEPENDENCY_MISSING", details: { package: "vitest", entry: "@yoke/testkit/contracts" } });
    expect(out.message).toContain("npm install --save-dev vitest fast-check");
  });

  it("@yoke/testkit/contracts without fast-check: DEPENDENCY_MISSING naming fast-check", () => {
    expect(importWithout("@yoke/testkit/contracts", ["fast-check"])).toMatchObject({ code: "DEPENDENCY_MISSING", details: { package: "fast-check" } });
  });

  it("@yoke/testkit/arbitraries without fast-check: DEPENDENCY_MISSING naming fast-check", () => {
    const out = importWithout("@yoke/testkit/arbitraries", ["fast-check"]);
    expect(out).toMatchObject({ name: "YokeError", code: "DEPENDENCY_MISSING", details: { package: "fast-check", entry: "@yoke/testkit/arbitraries" } });
    expect(out.message).toContain("npm install --save-dev fast-check");
  });

  it("the root entry needs neither: it loads without vitest and fast-check", () => {
    const out = importWithout("@yoke/testkit", ["vitest", "fast-check"]);
    expect(out.loaded).toContain("createScriptedModel");
  });

  it("with both installed, the checked entries export exactly what the suites and arbitraries do", async () => {
    const entries = [
      ["@yoke/testkit/contracts", "../dist/contracts.js"],
      ["@yoke/testkit/arbitraries", "../dist/arbitraries.js"],
    ] as const;
    for (const [specifier, built] of entries) {
      const out = importWithout(specifier, []);
      const direct = (await import(built)) as Record<string, unknown>;
      expect(out.loaded, specifier).toEqual(Object.keys(direct).sort());
    }
  });
});
