// What every published package must carry: the licence text and the fields an adopter reads.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RUNTIME_VERSION } from "@yoke/runtime";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const packages = readdirSync(join(root, "packages"));
const licence = readFileSync(join(root, "LICENSE"), "utf8");

describe("package metadata", () => {
  it("finds the packages", () => expect(packages.length).toBeGreaterThanOrEqual(8));

  it.each(packages)("@yoke/%s ships the Apache-2.0 licence text and says which Node it needs", (name) => {
    const manifest = JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")) as { license?: string; engines?: { node?: string } };
    expect(manifest.license).toBe("Apache-2.0");
    expect(licence).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(readFileSync(join(root, "packages", name, "LICENSE"), "utf8")).toBe(licence);
    expect(manifest.engines?.node).toMatch(/^>=\d+/);
  });
});

describe("the built runtime", () => {
  it("records the version its package.json states (written in at build time)", () => {
    const manifest = JSON.parse(readFileSync(join(root, "packages", "runtime", "package.json"), "utf8")) as { version: string };
    expect(RUNTIME_VERSION).toBe(manifest.version);
  });

  it("depends on @yoke/journal because it imports it (the default in-memory journal), and on nothing it does not import", () => {
    const manifest = JSON.parse(readFileSync(join(root, "packages", "runtime", "package.json"), "utf8")) as { dependencies: Record<string, string> };
    const built = readFileSync(join(root, "packages", "runtime", "dist", "index.js"), "utf8");
    expect(Object.keys(manifest.dependencies)).toContain("@yoke/journal");
    for (const name of Object.keys(manifest.dependencies)) expect(built, `dist imports ${name}`).toContain(`"${name}"`);
  });
});
