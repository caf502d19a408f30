// The quick half of the round trip: each README's install line names every package its first
// snippet imports, and what the round trip reads from a README (install line, expectations)
// is read right.
import { describe, expect, it } from "vitest";
import { guideLabel, packageDirs, readGuide, readGuides, unmetExpectations } from "./readmes.ts";

const packageOf = (specifier: string): string =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

describe("package READMEs", () => {
  it.each(
    packageDirs()
      .flatMap(readGuides)
      .map((guide) => [guideLabel(guide), guide] as const),
  )("packages/%s/README.md: the install line names every package the first snippet imports", (label, guide) => {
    const dir = guide.dir;
    const imported = [...guide.snippet.matchAll(/from "([^"]+)"/g)]
      .map((m) => m[1]!)
      .filter((s) => !s.startsWith("node:"))
      .map(packageOf);
    // An install word may pin a range (`zod@^3.25.0`): compare names.
    const installed = guide.install.map((word) => word.replace(/(.)@.*$/, "$1"));
    expect(
      imported.filter((name) => !installed.includes(name)),
      `packages/${dir}/README.md (${label}) install line: ${guide.install.join(" ")}`,
    ).toEqual([]);
    expect(guide.install).toContain(guide.name);
  });
});

describe("what a snippet says it prints", () => {
  it("matches printed text with quotes made single, spaces and line breaks collapsed, and … as any text", () => {
    const printed = "0 run.started ab12\n{\n  ok: true,\n  events: 2,\n  headHash: '0807d4',\n  keyIds: []\n}\n";
    expect(unmetExpectations(['{ ok: true, events: 2, headHash: "…", keyIds: [] }'], printed)).toEqual([]);
    expect(unmetExpectations(["{ ok: false }"], printed)).toEqual(["{ ok: false }"]);
  });

  it("checks the expectations in order", () => {
    expect(unmetExpectations(["first", "second"], "first\nsecond\n")).toEqual([]);
    expect(unmetExpectations(["second", "first"], "first\nsecond\n")).toEqual(["first"]);
  });

  it("reads the install lines: every `pnpm add`, flags and comments dropped", () => {
    expect(readGuide("testkit").install).toEqual(expect.arrayContaining(["@yoke/testkit", "vitest", "fast-check", "@yoke/runtime"]));
    expect(readGuide("testkit").install.some((word) => word.startsWith("-") || word.startsWith("#"))).toBe(false);
  });
});
