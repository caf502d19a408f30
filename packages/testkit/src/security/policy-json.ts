/** A rule of the policy document format (`@yoke/policy`, version 1), as plain JSON. */
export interface PolicyRuleJson {
  readonly id: string;
  readonly effect: "allow" | "deny" | "require_approval";
  readonly reason?: string;
  readonly match: Readonly<Record<string, unknown>>;
}

/** A policy document (`@yoke/policy`, version 1), as plain JSON: load it with `loadPolicy`. */
export interface PolicyDocumentJson {
  readonly version: 1;
  readonly id: string;
  readonly defaults: { readonly readOnly: "allow" | "deny" };
  readonly rules: readonly PolicyRuleJson[];
}

/** Every dimension a wildcard: an allow rule narrows the ones it names. */
export const ANY = {
  tenant: "*",
  principal: { ids: "*", authenticated: "*" },
  scopes: "*",
  tool: { names: "*", revisions: "*", owners: "*" },
  verb: "*",
  resource: "*",
  path: "*",
  dataClassification: "*",
  destination: "*",
  baseRevision: "*",
  sideEffect: "*",
  expectedEffect: "*",
  provenance: "*",
} as const;
