import { runtimeVersionOf, type Release, type ReleaseDifference } from "@yoke/protocol";

/**
 * The default rule (docs/decisions/0026-releases-and-migrations.md): a difference is
 * compatible unless the code cannot read or keep the run's meaning.
 * - A field the run pinned that the running release lacks (no policy, no pricing table) is
 *   incompatible: the run would lose a guard it was started under.
 * - `eventSchemaVersion`: a newer pinned schema than the running one cannot be read; an older one is (readers keep every older shape).
 * - `runtime`: two semantic versions of one package with the same major (the same minor below
 *   1.0), the running one not older than the pinned one (semver precedence); a label that is
 *   not a version says nothing about compatibility, so a different one is refused until a
 *   rule says otherwise.
 * - `pricing`: the same currency (spend already charged is in it); another table is compatible.
 * - `providers`, `compiler`, `tools`, `policy`, `verifiers`: compatible. What the run already
 *   did is journaled (requests are sent again from their journaled bytes, calls run the
 *   revisions the run pinned, a later attempt is decided again by the policy in force), and
 *   what comes next is the running release's to decide: `release.changed` records the switch.
 */
export function defaultCompatible(differences: readonly ReleaseDifference[]): boolean {
  return differences.every(compatibleDifference);
}

function compatibleDifference(difference: ReleaseDifference): boolean {
  // A component the run was started with that the running release lacks (a policy, a pricing table): never dropped silently.
  if (difference.running === undefined) return false;
  switch (difference.field) {
    case "eventSchemaVersion":
      return (difference.pinned as number) <= (difference.running as number);
    case "runtime":
      return sameSeries(difference.pinned as string, difference.running as string);
    case "pricing":
      return (difference.pinned as Release["pricing"])?.currency === (difference.running as Release["pricing"])?.currency;
    default:
      return true;
  }
}

function sameSeries(pinned: string, running: string): boolean {
  const a = runtimeVersionOf(pinned);
  const b = runtimeVersionOf(running);
  if (a === undefined || b === undefined || a.name !== b.name || a.major !== b.major) return false;
  if (a.major === 0 && a.minor !== b.minor) return false;
  // Never an older release than the one that last drove the run: it may have journaled what
  // an older reader does not know (a rollback drains in-flight runs, it does not take them over).
  if (b.minor !== a.minor) return b.minor > a.minor;
  if (b.patch !== a.patch) return b.patch > a.patch;
  return comparePrerelease(prereleaseOf(pinned), prereleaseOf(running)) <= 0;
}

/** The pre-release identifiers of a version (`1.4.0-rc.1` → `["rc", "1"]`), none for a release. */
function prereleaseOf(runtime: string): string[] | undefined {
  const match = /\d+\.\d+\.\d+-([0-9A-Za-z.-]+)/.exec(runtime.replace(/\+.*$/, ""));
  return match === null ? undefined : match[1]!.split(".");
}

/** Semver precedence of two pre-releases of one version: a release outranks any pre-release of it. */
function comparePrerelease(a: string[] | undefined, b: string[] | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const x = a[index];
    const y = b[index];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (x === y) continue;
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y);
    if (numeric) return Number(x) - Number(y);
    if (/^\d+$/.test(x) !== /^\d+$/.test(y)) return /^\d+$/.test(x) ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}
