// A reference decision written from the rules' specification alone, sharing no code with the
// engine: no index, no compiled patterns, globs by dynamic programming over characters.
import type { PolicyTuple } from "@yoke/protocol";
import type { PolicyDocument, PolicyRule } from "../index.js";

type Token = { readonly star: true } | { readonly char: string };

/** `*` is any run of characters, `\x` is the character x, everything else is itself. */
export function referenceGlob(pattern: string, value: string): boolean {
  const tokens: Token[] = [];
  for (let index = 0; index < pattern.length; index++) {
    if (pattern[index] === "\\") tokens.push({ char: pattern[++index]! });
    else if (pattern[index] === "*") tokens.push({ star: true });
    else tokens.push({ char: pattern[index]! });
  }
  // reachable[j]: the tokens so far can match value[0, j).
  let reachable = Array.from({ length: value.length + 1 }, (_, j) => j === 0);
  for (const token of tokens) {
    const next = Array.from({ length: value.length + 1 }, () => false);
    for (let j = 0; j <= value.length; j++) {
      if ("star" in token) next[j] = reachable[j]! || (j > 0 && next[j - 1]!);
      else next[j] = j > 0 && reachable[j - 1]! && value[j - 1] === token.char;
    }
    reachable = next;
  }
  return reachable[value.length]!;
}

function valueMatches(list: unknown, value: unknown): boolean {
  if (list === undefined || list === "*") return true;
  return (list as readonly unknown[]).some((pattern) => {
    if (pattern === null) return value === undefined || value === null;
    if (typeof pattern === "boolean") return value === pattern;
    return typeof value === "string" && referenceGlob(pattern as string, value);
  });
}

/** Whether the rule matches the whole tuple (a dimension a deny rule leaves out matches anything). */
export function referenceMatches(rule: PolicyRule, tuple: PolicyTuple): boolean {
  const match = rule.match as Record<string, unknown> & {
    principal?: { ids?: unknown; authenticated?: unknown };
    tool?: { names?: unknown; revisions?: unknown; owners?: unknown };
    scopes?: unknown;
    provenance?: unknown;
    influence?: unknown;
    carries?: unknown;
    delegation?: unknown;
  };
  const scopesMatch = match.scopes === undefined || match.scopes === "*" || tuple.task.scopes.some((scope) => valueMatches(match.scopes, scope));
  let provenanceMatches = true;
  if (match.provenance !== undefined && match.provenance !== "*") {
    const condition = match.provenance as { roles: string[]; origins: string[] };
    provenanceMatches = tuple.provenance.every(
      (entry) => entry.role === undefined || !condition.roles.some((role) => referenceGlob(role, entry.role!)) || condition.origins.includes(entry.origin),
    );
  }
  const integrity = tuple.influence?.integrity === "trusted" ? "trusted" : "untrusted";
  const influenceMatches = match.influence === undefined || match.influence === "*" || (match.influence as string[]).includes(integrity);
  let carriesMatches = true;
  if (match.carries !== undefined && match.carries !== "*") {
    const condition = match.carries as { classifications?: string[]; fromToolOutput?: boolean; fromUntrusted?: boolean; outward?: boolean };
    const carries = tuple.carries;
    carriesMatches =
      carries !== undefined &&
      (condition.classifications === undefined || condition.classifications.includes(carries.classification)) &&
      (condition.fromToolOutput === undefined || condition.fromToolOutput === carries.fromToolOutput) &&
      (condition.fromUntrusted === undefined || condition.fromUntrusted === carries.fromUntrusted) &&
      (condition.outward === undefined || condition.outward === carries.outward);
  }
  const delegationMatches = match.delegation === undefined || match.delegation === "*" || (match.delegation as string[]).includes(referenceStanding(tuple));
  return (
    delegationMatches &&
    influenceMatches &&
    carriesMatches &&
    valueMatches(match.tenant, tuple.tenantId) &&
    valueMatches(match.principal?.ids, tuple.principal.id) &&
    valueMatches(match.principal?.authenticated, tuple.principal.authenticated) &&
    scopesMatch &&
    valueMatches(match.tool?.names, tuple.tool.name) &&
    valueMatches(match.tool?.revisions, tuple.tool.revision) &&
    valueMatches(match.tool?.owners, tuple.tool.owner) &&
    valueMatches(match.verb, tuple.verb) &&
    valueMatches(match.resource, tuple.resource) &&
    valueMatches(match.path, tuple.path) &&
    valueMatches(match.dataClassification, tuple.dataClassification) &&
    valueMatches(match.destination, tuple.destination) &&
    valueMatches(match.baseRevision, tuple.baseRevision) &&
    valueMatches(match.sideEffect, tuple.sideEffect) &&
    valueMatches(match.expectedEffect, tuple.expectedEffect) &&
    provenanceMatches
  );
}

/**
 * The effect and rule id the specification gives: deny > require_approval > allow, first in the
 * document wins, then the defaults (reads of public or internal data get defaults.readOnly;
 * everything else is denied). An allowed side effect under untrusted influence needs a person
 * (influence-default) unless an allow rule listing "untrusted" matches (the first such names
 * it) or the document turns the default off; a call within the delegation is not subject to
 * it. With a delegation, an allowed side effect outside it needs a person (delegation-default)
 * unless the allowing rule lists "outside" or the document turns that default off; that default
 * names the decision before the influence and data-flow defaults. An allowed outward call carrying confidential or
 * restricted data from tool outputs needs a person (data-flow-default) unless an allow rule
 * whose carries lists that classification matches (naming untrusted too when the influence
 * default applies; the first such names it) or the document turns that default off; when both
 * defaults apply and no rule names both, the influence default names the decision if no allow
 * rule names untrusted influence.
 */
export function referenceDecide(document: PolicyDocument, tuple: PolicyTuple): { effect: string; ruleId: string } {
  const matching = document.rules.filter((rule) => referenceMatches(rule, tuple));
  const standing = referenceStanding(tuple);
  const untrustedSideEffect =
    tuple.sideEffect !== "none" && tuple.influence?.integrity !== "trusted" && document.defaults?.untrustedInfluence !== "allow" && standing !== "within";
  const outsideSideEffect = tuple.sideEffect !== "none" && standing === "outside" && document.defaults?.outsideDelegation !== "allow";
  const carries = tuple.carries;
  const guardedFlow =
    document.defaults?.dataFlow !== "allow" &&
    carries?.outward === true &&
    carries.fromToolOutput &&
    (carries.classification === "confidential" || carries.classification === "restricted");
  const namesUntrusted = (rule: PolicyRule) => Array.isArray(rule.match.influence) && rule.match.influence.includes("untrusted");
  const namesOutside = (rule: PolicyRule) => Array.isArray(rule.match.delegation) && rule.match.delegation.includes("outside");
  const namesFlow = (rule: PolicyRule) => {
    const condition = rule.match.carries;
    return condition !== undefined && condition !== "*" && (condition.classifications ?? []).some((name) => name === "confidential" || name === "restricted");
  };
  for (const effect of ["deny", "require_approval", "allow"] as const) {
    const first = matching.find((rule) => rule.effect === effect);
    if (first === undefined) continue;
    if (effect !== "allow") return { effect, ruleId: first.id };
    const allows = matching.filter((rule) => rule.effect === "allow");
    let chosen = untrustedSideEffect ? (allows.find(namesUntrusted) ?? first) : first;
    if (guardedFlow && !namesFlow(chosen)) chosen = allows.find((rule) => namesFlow(rule) && (!untrustedSideEffect || namesUntrusted(rule))) ?? chosen;
    if (outsideSideEffect && !namesOutside(chosen)) return { effect: "require_approval", ruleId: "delegation-default" };
    if (untrustedSideEffect && !namesUntrusted(chosen)) return { effect: "require_approval", ruleId: "influence-default" };
    if (guardedFlow && !namesFlow(chosen)) return { effect: "require_approval", ruleId: "data-flow-default" };
    return { effect, ruleId: chosen.id };
  }
  const unclassified = tuple.dataClassification === "public" || tuple.dataClassification === "internal";
  if (tuple.sideEffect === "none" && unclassified) return { effect: document.defaults?.readOnly ?? "allow", ruleId: "default-read-only" };
  return { effect: "deny", ruleId: "default-deny" };
}

function referenceStanding(tuple: PolicyTuple): "within" | "outside" | "none" {
  if (tuple.delegation === undefined) return "none";
  return tuple.delegation.within === true ? "within" : "outside";
}
