import { YokeError } from "@yoke/protocol";

/**
 * Throws DEPENDENCY_MISSING, naming the package to install, for the first of `packages` that
 * `resolve` cannot find. Runs before an entry loads the code that imports them, so a missing
 * optional peer is a clear typed error instead of the module loader's.
 */
export function assertPeersInstalled(entry: string, packages: readonly string[], resolve: (specifier: string) => string): void {
  for (const name of packages) {
    try {
      resolve(name);
    } catch (error) {
      throw new YokeError(
        "DEPENDENCY_MISSING",
        `${entry} needs ${packages.join(" and ")}, optional peer dependencies of @yoke/testkit; ${name} is not installed: npm install --save-dev ${packages.join(" ")}`,
        { cause: error, details: { package: name, entry } },
      );
    }
  }
}
