import { createHash } from "node:crypto";
import { YokeError } from "@yoke/protocol";
import { reconstructRequest } from "@yoke/runtime";
import type { CommandContext } from "../cli/context.js";
import { usageError } from "../cli/exit-codes.js";
import { parse, positiveInteger } from "../cli/parse.js";
import { table } from "../format/text.js";
import { findRun } from "../inspect/load-run.js";
import { wireBodyOf } from "./wire-body.js";

export const REQUEST_USAGE =
  "yoke request <run> <turn> [--call N] [--bytes | --wire openai|openai-chat|anthropic [--model M]] [--tenant T] [--journal FILE] [--json]";

/**
 * `yoke request <run> <turn>`: the exact request the model received on that turn, rebuilt
 * from the journal alone (the manifest the deltas add up to, the run's inputs, the
 * artifacts), checked against the hash journaled before the call (REQUEST_MISMATCH, exit 1,
 * when it does not rebuild), with what was kept, cut and omitted and why. `--bytes` prints
 * the request bytes only (their SHA-256 is the journaled request hash); `--call N` the N-th
 * request of the turn (1-based: the turn's continuations after max_tokens or a cut call).
 * Those bytes are Yoke's normalized request, what the adapter was given; `--wire <provider>`
 * prints instead the provider's wire body the adapter built from it (the HTTP body its SDK
 * sent, exactly), rebuilt by the adapter package (`--model`: default the journaled model id).
 */
export async function requestCommand(context: CommandContext): Promise<number> {
  const { values, positionals } = parse(
    context.args,
    { bytes: { type: "boolean", default: false }, call: { type: "string" }, wire: { type: "string" }, model: { type: "string" } },
    { min: 2, max: 2, usage: REQUEST_USAGE },
  );
  if (values.help) {
    context.out.lines([`usage: ${REQUEST_USAGE}`]);
    return 0;
  }
  const turn = positiveInteger(positionals[1], "<turn>")!;
  const call = positiveInteger(values.call, "--call") ?? 1;
  if (values.bytes && values.json) throw usageError("--bytes and --json cannot be combined");
  if (values.bytes && values.wire !== undefined)
    throw usageError("--bytes and --wire cannot be combined: one prints the normalized request, the other the provider's body");
  if (values.model !== undefined && values.wire === undefined) throw usageError("--model applies to --wire only");
  const journal = await context.open(values.journal);
  try {
    const scope = await findRun(journal, positionals[0]!, values.tenant);
    const rebuilt = await reconstructRequest(journal, scope, turn, { requestInTurn: call - 1 });
    const digest = createHash("sha256").update(rebuilt.bytes, "utf8").digest("hex");
    if (digest !== rebuilt.requestHash) {
      throw new YokeError("REQUEST_MISMATCH", `the rebuilt bytes hash to ${digest}, not to the journaled ${rebuilt.requestHash}`, {
        details: { expected: rebuilt.requestHash, actual: digest },
      });
    }
    if (values.bytes) {
      context.out.exact(rebuilt.bytes);
      return 0;
    }
    const { manifest } = rebuilt;
    const wire = values.wire === undefined ? undefined : await wireBodyOf(values.wire, rebuilt.request, values.model ?? manifest.model);
    if (wire !== undefined && !values.json) {
      context.out.exact(JSON.stringify(wire.body));
      return 0;
    }
    if (values.json) {
      context.out.json({
        ...(wire === undefined ? {} : { wire }),
        ...scope,
        turn,
        call,
        compiledSeq: rebuilt.seq,
        requestHash: rebuilt.requestHash,
        matches: true,
        bytes: rebuilt.bytes,
        request: rebuilt.request,
        manifest,
        sourceSeqs: Object.fromEntries(rebuilt.sourceSeqs),
        cutOutputs: rebuilt.cutOutputs,
      });
      return 0;
    }
    const allocation = manifest.allocation;
    const sections = Object.entries(allocation.sections)
      .filter(([, tokens]) => tokens > 0)
      .map(([section, tokens]) => `${section} ${tokens}`)
      .join(", ");
    const rows = manifest.items.map((item) => {
      const cut = (item.truncations ?? []).map(
        (entry) => `part ${entry.part} kept ${entry.keptBytes} of ${entry.originalBytes} bytes (full text ${entry.artifactHash.slice(0, 12)})`,
      );
      const from = rebuilt.sourceSeqs.get(item.id);
      const why = [item.reason ?? "", ...cut].filter(Boolean).join("; ");
      return [item.id, item.kind, item.trust, item.section, item.decision, String(item.tokens), from === undefined ? "" : `#${from}`, why];
    });
    context.out.lines([
      `run ${scope.runId} (tenant ${scope.tenantId}), turn ${turn}${call > 1 ? `, request ${call}` : ""}: compiled in event #${rebuilt.seq}`,
      `request ${rebuilt.requestHash}: ${Buffer.byteLength(rebuilt.bytes, "utf8")} bytes rebuilt from the journal, SHA-256 matches the journaled hash`,
      `model ${manifest.model}, ${manifest.messageCount} messages, ${manifest.tools.length} tools (${manifest.tools.map((tool) => tool.name).join(", ")}), tokenizer ${manifest.tokenizer.encoding} (${manifest.tokenizer.mode})`,
      `tokens: ${allocation.used} used of ${allocation.contextWindow}, output reserve ${allocation.outputReserve}, mandatory ${allocation.mandatory}, free ${allocation.free}; by section: ${sections}`,
      `stable prefix: ${manifest.stablePrefix.messages} messages (${manifest.stablePrefix.bytes} bytes)`,
      "",
      ...table([["ITEM", "KIND", "TRUST", "SECTION", "DECISION", "TOKENS", "FROM", "WHY"], ...rows]),
      "",
      "(the normalized request these hash, as the adapter was given it: --bytes; the provider's wire body the adapter built from it: --wire openai|openai-chat|anthropic)",
    ]);
    return 0;
  } finally {
    await journal.close();
  }
}
