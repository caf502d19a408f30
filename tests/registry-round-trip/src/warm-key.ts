// What bootstrap's warm registry storage must hold, and the key it is stamped with.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { guideLabel, packageDirs, readGuides, repoRoot, thirdPartySpecs, workspaceCatalog } from "./readmes.ts";

/** What the warm storage must hold: for each README guide, the third-party specs its install resolves. */
export function warmPlan(): Record<string, string[]> {
  const catalog = workspaceCatalog();
  return Object.fromEntries(
    packageDirs()
      .flatMap(readGuides)
      .map((guide) => [guideLabel(guide), thirdPartySpecs(guide.install, catalog)]),
  );
}

/** The key of a warm storage: Verdaccio's lockfile and the plan. */
export function warmKey(): string {
  const lock = readFileSync(join(repoRoot, ".toolchain/registry/package-lock.json"), "utf8");
  return createHash("sha256").update(lock).update(JSON.stringify(warmPlan())).digest("hex");
}

export const warmStamp = join(repoRoot, ".toolchain/registry/warm-stamp");
