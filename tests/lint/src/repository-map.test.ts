// The map of the repository stays true to the tree: every package is in the README and in
// docs/ARCHITECTURE.md, every decision record is in the README and is headed by its own number,
// every relative link of the map leads somewhere (anchors included), and every Biome message
// that explains a rule points into docs/ARCHITECTURE.md, never outside the repository. The
// checker itself is shown to fail on a throwaway tree with each kind of mistake.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { biomeMessages, brokenLinks, decisionRecords, headingAnchors, headingSlug, linkedPaths, linkTargets, packageDirectories } from "./repository-map.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** The pages a contributor reads first; each is checked for broken links. */
const MAP = ["README.md", "docs/ARCHITECTURE.md", "CONTRIBUTING.md"];

const read = (path: string): string => readFileSync(join(repoRoot, path), "utf8");

describe("the map of the repository", () => {
  it("lists every package in the README and in docs/ARCHITECTURE.md", () => {
    const packages = packageDirectories(repoRoot);
    expect(packages.length).toBeGreaterThan(0);
    const inReadme = linkedPaths(repoRoot, "README.md");
    const inArchitecture = linkedPaths(repoRoot, "docs/ARCHITECTURE.md");
    expect(
      packages.filter((name) => !inReadme.has(`packages/${name}`)),
      "packages the README does not link",
    ).toEqual([]);
    expect(
      packages.filter((name) => !inArchitecture.has(`packages/${name}`)),
      "packages docs/ARCHITECTURE.md does not link",
    ).toEqual([]);
  });

  it("lists every decision record in the README", () => {
    const records = decisionRecords(repoRoot);
    expect(records.length).toBeGreaterThan(0);
    const inReadme = linkedPaths(repoRoot, "README.md");
    expect(
      records.filter((name) => !inReadme.has(`docs/decisions/${name}`)),
      "records the README does not link",
    ).toEqual([]);
  });

  it("heads every decision record with its own number, once", () => {
    const records = decisionRecords(repoRoot);
    const misheaded = records.filter((name) => !read(`docs/decisions/${name}`).startsWith(`# ${name.slice(0, 4)} — `));
    expect(misheaded, "records whose first line is not `# NNNN — title` with the file's number").toEqual([]);
    const numbers = records.map((name) => name.slice(0, 4));
    expect(
      numbers.filter((number, index) => numbers.indexOf(number) !== index),
      "numbers used twice",
    ).toEqual([]);
  });

  it("has no relative link that leads nowhere, in the map or in the decision records", () => {
    const files = [...MAP, ...decisionRecords(repoRoot).map((name) => `docs/decisions/${name}`)];
    expect(files.flatMap((file) => brokenLinks(repoRoot, file, new Set()))).toEqual([]);
  });

  it("explains every layering rule of biome.jsonc in docs/ARCHITECTURE.md, at a heading that exists", () => {
    const messages = biomeMessages(read("biome.jsonc"));
    expect(messages.length).toBeGreaterThan(0);
    const anchors = headingAnchors(read("docs/ARCHITECTURE.md"));
    for (const message of messages) {
      expect(message, "a message cites a document outside the repository").not.toMatch(/DESIGN\.md|STYLE\.md|shared\//);
      const cited = /docs\/ARCHITECTURE\.md#([\w-]+)/.exec(message)?.[1];
      expect(cited, `"${message}" names no section of docs/ARCHITECTURE.md`).toBeDefined();
      expect(anchors.has(cited!), `docs/ARCHITECTURE.md has no heading #${cited}`).toBe(true);
    }
  });
});

describe("the checker", () => {
  const trees: string[] = [];
  afterEach(() => {
    for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
  });

  function tree(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), "yoke-map-"));
    trees.push(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  it("finds a missing file, a missing heading and a missing anchor in the same file; follows good ones", () => {
    const root = tree({
      "README.md": [
        "# Title",
        "## Working on it",
        "[ok](docs/A.md#the-layers-who-imports-whom) [dir](docs) [self](#working-on-it) [web](https://example.com/x)",
        "[gone](docs/B.md) [no heading](docs/A.md#nowhere) [no self](#nowhere)",
        "```ts\nconst link = [x](not-a-link.md);\n```",
        "`[code](also-not-a-link.md)`",
      ].join("\n"),
      "docs/A.md": "# A\n\n## The layers: who imports whom?\n",
    });
    expect(brokenLinks(root, "README.md")).toEqual([
      { file: "README.md", target: "docs/B.md", reason: "missing" },
      { file: "README.md", target: "docs/A.md#nowhere", reason: "no such heading" },
      { file: "README.md", target: "#nowhere", reason: "no such heading" },
    ]);
    expect(brokenLinks(root, "README.md", new Set(["docs/B.md"])).map((link) => link.target)).toEqual(["docs/A.md#nowhere", "#nowhere"]);
  });

  it("resolves links relative to the file that holds them", () => {
    const root = tree({ "docs/ARCHITECTURE.md": "[pkg](../packages/a) [bad](packages/a)\n", "packages/a/package.json": "{}\n" });
    expect(brokenLinks(root, "docs/ARCHITECTURE.md").map((link) => link.target)).toEqual(["packages/a"]);
    expect(linkedPaths(root, "docs/ARCHITECTURE.md")).toEqual(new Set(["packages/a", "docs/packages/a"]));
  });

  it("sees a package or a record nobody listed", () => {
    const root = tree({
      "packages/listed/package.json": "{}\n",
      "packages/forgotten/package.json": "{}\n",
      "packages/not-a-package/notes.txt": "\n",
      "docs/decisions/0001-first.md": "# 0001 — First\n",
      "docs/decisions/0002-second.md": "# 0002 — Second\n",
      "README.md": "[listed](packages/listed) [first](docs/decisions/0001-first.md)\n",
    });
    const linked = linkedPaths(root, "README.md");
    expect(packageDirectories(root).filter((name) => !linked.has(`packages/${name}`))).toEqual(["forgotten"]);
    expect(decisionRecords(root).filter((name) => !linked.has(`docs/decisions/${name}`))).toEqual(["0002-second.md"]);
  });

  it("makes GitHub's anchors, repeated headings included", () => {
    expect(headingSlug("Layers: who may import whom")).toBe("layers-who-may-import-whom");
    expect(headingSlug("A loop of your own: `@yoke/runtime/loop`")).toBe("a-loop-of-your-own-yokeruntimeloop");
    expect(headingSlug("Tests of a layer's [own](x) code")).toBe("tests-of-a-layers-own-code");
    expect([...headingAnchors("# A\n## Notes\n### Notes\n```\n# not a heading\n```\n")]).toEqual(["a", "notes", "notes-1"]);
  });

  it("reads link targets outside code only, and Biome messages with their escapes", () => {
    expect(linkTargets("[a](x.md) `[b](y.md)` [c `d`](z.md#h)\n```\n[e](w.md)\n```\n")).toEqual(["x.md", "z.md#h"]);
    expect(biomeMessages('{ "message": "a \\"quoted\\" rule. See docs/ARCHITECTURE.md#x", // note\n "message":"b" }')).toEqual([
      'a "quoted" rule. See docs/ARCHITECTURE.md#x',
      "b",
    ]);
  });
});
