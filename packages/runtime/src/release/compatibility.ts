import { runtimeVersionOf, type Release, type ReleaseDifference } from "@yoke/protocol";

/**
 * The default rule (docs/decisions/0026-releases-and-migrations.md): a difference is
 * compatible unless the code cannot read or keep the run's meaning.
 * - A field the run pinned that the running release lacks (no policy, no pricing table) is
 *   incompatible: the run would lose a guard it was started under.
 * - `eventSchemaVersion`: a newer pinned schema than the running one cannot be read; an older one is (readers keep every older shape).
 * - `runtime`: two semantic versions of one package with the same major (the same minor below
 *   1.0); a label that is not a version says nothing about compatibility, so a different one
 *   is refused until a rule says otherwise.
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
  return a.major > 0 || a.minor === b.minor;
}
