import type { ReadmissionRule, ToolDrift, ToolRevisionRecord } from "@yoke/protocol";

/**
 * The first rule that admits `drift`: its `changes` hold every change of the drift, and each
 * matcher it has matches the offered revision (origin kind and URL or command, trust domain,
 * the pinned tool's name). Undefined when none does.
 */
export function firstAdmittingRule(rules: readonly ReadmissionRule[], drift: ToolDrift, offered: ToolRevisionRecord): ReadmissionRule | undefined {
  return rules.find((rule) => admits(rule, drift, offered));
}

function admits(rule: ReadmissionRule, drift: ToolDrift, offered: ToolRevisionRecord): boolean {
  if (!drift.changes.every((change) => rule.changes.includes(change))) return false;
  if (rule.origin !== undefined) {
    if (rule.origin.kind !== offered.origin.kind) return false;
    if (rule.origin.url !== undefined && (offered.origin.kind !== "mcp-http" || offered.origin.url !== rule.origin.url)) return false;
    if (rule.origin.command !== undefined && (offered.origin.kind !== "mcp-stdio" || offered.origin.command !== rule.origin.command)) return false;
  }
  if (rule.trustDomains !== undefined && !rule.trustDomains.includes(offered.trustDomain)) return false;
  if (rule.tools !== undefined && !rule.tools.includes(drift.toolName)) return false;
  return true;
}
