// Reads the repository's map (README.md, docs/ARCHITECTURE.md, CONTRIBUTING.md, the decision
// records and the messages of biome.jsonc) and says where it no longer matches the tree: a
// package or a record nobody lists, a relative link to nothing, an anchor no heading makes.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/** A link the checker could not follow, with the file it is in. */
export interface BrokenLink {
  readonly file: string;
  readonly target: string;
  readonly reason: "missing" | "no such heading";
}

/** The text with fenced code blocks and inline code spans blanked, so code is never read as a link. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "``");
}

/** Every `[text](target)` target of a Markdown text, outside code, in order. */
export function linkTargets(markdown: string): string[] {
  // Link text may hold inline code (blanked above) but no brackets of its own.
  return [...withoutCode(markdown).matchAll(/\[[^\]\n]*\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

/** GitHub's anchor for a heading's text: lower case, inline markup and punctuation dropped, spaces as hyphens. */
export function headingSlug(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a Markdown text's headings make (a repeated heading gets `-1`, `-2`, … as on GitHub). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const match of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const slug = headingSlug(match[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/**
 * The relative links of `file` (a path under `root`) that lead nowhere: a path that does not
 * exist, or an anchor that no heading of the Markdown file it points into makes. Links with a
 * scheme (`https:`, `mailto:`) are not followed. `tolerated` holds paths (from `root`) that may
 * be missing for now; once they exist their links are checked like any other.
 */
export function brokenLinks(root: string, file: string, tolerated: ReadonlySet<string> = new Set()): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const source = readFileSync(join(root, file), "utf8");
  for (const target of linkTargets(source)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [pathPart = "", anchor] = target.split("#", 2) as [string, string | undefined];
    const relative = pathPart === "" ? file : normalize(join(dirname(file), decodeURIComponent(pathPart)));
    const absolute = join(root, relative);
    if (!existsSync(absolute)) {
      if (!tolerated.has(relative)) broken.push({ file, target, reason: "missing" });
      continue;
    }
    if (anchor === undefined || anchor === "" || statSync(absolute).isDirectory() || !relative.endsWith(".md")) continue;
    if (!headingAnchors(readFileSync(absolute, "utf8")).has(anchor)) broken.push({ file, target, reason: "no such heading" });
  }
  return broken;
}

/** Package directories under `packages/` (those with a package.json), by directory name. */
export function packageDirectories(root: string): string[] {
  const dir = join(root, "packages");
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, "package.json")))
    .sort();
}

/** Decision records under `docs/decisions/`, by file name. */
export function decisionRecords(root: string): string[] {
  return readdirSync(join(root, "docs", "decisions"))
    .filter((name) => /^\d{4}-.+\.md$/.test(name))
    .sort();
}

/** The targets `file` (under `root`) links to, resolved to paths from `root` (anchors dropped). */
export function linkedPaths(root: string, file: string): Set<string> {
  const paths = new Set<string>();
  for (const target of linkTargets(readFileSync(join(root, file), "utf8"))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const pathPart = target.split("#", 1)[0]!;
    if (pathPart !== "") paths.add(normalize(join(dirname(file), decodeURIComponent(pathPart))).replace(/\/$/, ""));
  }
  return paths;
}

/** The `"message": "…"` strings of a biome.jsonc text, in order. */
export function biomeMessages(jsonc: string): string[] {
  return [...jsonc.matchAll(/"message"\s*:\s*"((?:[^"\\]|\\.)*)"/g)].map((match) => JSON.parse(`"${match[1]!}"`) as string);
}
