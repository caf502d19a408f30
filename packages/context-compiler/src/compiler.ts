import { createHash, type Hash } from "node:crypto";
import { canonicalJson, type Message, type ModelRequest } from "@yoke/protocol";
import { sha256Hex, type Artifact } from "./artifacts.js";
import { extractiveSummary, makeRevision, selectCompaction, summaryCharBudget, summaryTokenAllowance } from "./compaction.js";
import type { ContextRevision } from "./compaction-types.js";
import { headerFrame, reindexed, systemEntry, taskEntry, toolsEntry, transcriptEntry, type Entry, type ToolsEntry } from "./entries.js";
import { MESSAGE_OVERHEAD_TOKENS, toolOutputBudget, type CompileConfig, type ContextInput } from "./input.js";
import { candidatesOf, layoutContext, tailStartOf, type Columns, type Layout } from "./layout.js";
import { MANIFEST_VERSION, type Allocation, type Manifest, type ManifestItem, type Section } from "./manifest-schema.js";
import { contextOverflowError } from "./overflow.js";
import { headerAsJson, renderEvidenceMessage, renderHeader, EVIDENCE_HEADING } from "./render.js";
import { fillEvidence } from "./evidence.js";
import { type CompilerSetup, setupOf } from "./compiler-setup.js";

/**
 * What one compile produced.
 *
 * @example
 * ```ts
 * const { request, manifest, bytes, artifacts } = compiler.compile(input);
 * // journal diffManifest(previous, manifest) and the artifacts, then call the model with request
 * ```
 */
export interface CompileResult {
  /** Shares message and tool objects with the compiler's caches: adapters must not mutate it. */
  readonly request: ModelRequest;
  readonly manifest: Manifest;
  /**
   * The request bytes (UTF-8 text): the canonical JSON of the header (every request field
   * but messages) then of each message, one per line. Appending a message only appends
   * bytes, so turn N's bytes are a prefix of turn N+1's. `manifest.requestHash` is their SHA-256.
   * Computed on first access.
   */
  readonly bytes: string;
  /** Content the request refers to by hash (truncated outputs, evidence, constraints, summaries): persist by hash. */
  readonly artifacts: readonly Artifact[];
  /** The context is above the compaction policy's threshold: compact before the next turn. */
  readonly compactionDue: boolean;
  /** Compactions this compile made (extractive, because the transcript did not fit), oldest first: journal them. */
  readonly compactions: readonly ContextRevision[];
}

/**
 * A compiler for one context (one run or one fork). It caches each message's rendering,
 * token count and bytes, and the digest state of the stable prefix, so a turn costs what is
 * new, not the history. Results equal those of the pure `compile`.
 *
 * @example
 * ```ts
 * const compiler = createContextCompiler({ model: "gpt-4o", contextWindow: 128_000, maxOutputTokens: 4_096 });
 * const first = compiler.compile(input);
 * ```
 */
export interface ContextCompiler {
  readonly config: CompileConfig;
  compile(input: ContextInput): CompileResult;
}

/** The delimiter nonce of a context: fixed by the seed, or by the task and system prompt. */
export function delimiterNonce(input: Pick<ContextInput, "task" | "systemPrompt">, seed: string | undefined): string {
  return sha256Hex(`yoke-delimiter/1\n${seed ?? canonicalJson([input.task, input.systemPrompt ?? null])}`).slice(0, 8);
}

/** The tools entry with the request header it makes. */
interface ToolsPart {
  readonly entry: ToolsEntry;
  readonly header: ReturnType<typeof renderHeader>;
  readonly headerJson: Manifest["header"];
  readonly frame: { frame: string; frameBytes: number };
}

/** The entries of one context, each cached by what it depends on: a turn renders and counts only what is new. */
function entryCaches(setup: CompilerSetup) {
  const { config, counter } = setup;
  const budgetOf = (toolName: string) => toolOutputBudget(config, toolName);
  const transcriptCache = new WeakMap<Message, { id: string; trust: string | undefined; nonce: string; entry: Entry }>();
  let toolsCache: { key: readonly unknown[]; part: ToolsPart } | undefined;
  let systemCache: { key: string; entry: Entry } | undefined;
  let taskCache: { key: string; entry: Entry } | undefined;
  let nonceCache: { readonly task: string; readonly systemPrompt: string | undefined; readonly nonce: string } | undefined;
  // Each cache only saves work: a miss rebuilds an equal entry. A hit must never be wrong, which
  // the compiler-caches and compiler-config tests pin.
  return {
    /** The nonce depends on the task and system prompt only: recomputed when they change. */
    nonce(input: ContextInput): string {
      if (nonceCache === undefined || nonceCache.task !== input.task || nonceCache.systemPrompt !== input.systemPrompt) {
        nonceCache = { task: input.task, systemPrompt: input.systemPrompt, nonce: delimiterNonce(input, config.delimiterSeed) };
      }
      return nonceCache.nonce;
    },
    tools(input: ContextInput, nonce: string): ToolsPart {
      const key = [input.tools, input.remoteTools, input.toolRevisions, nonce];
      if (toolsCache === undefined || toolsCache.key.some((value, index) => value !== key[index])) {
        // `?? []` as `["Stryker was here"]` survives: equivalent unless a tool has that name.
        const entry = toolsEntry(input.tools, new Set(input.remoteTools ?? []), nonce, counter, input.toolRevisions);
        const header = renderHeader({ ...config, tools: entry.tools });
        toolsCache = { key, part: { entry, header, headerJson: headerAsJson(header), frame: headerFrame(header) } };
      }
      return toolsCache.part;
    },
    system(input: ContextInput, nonce: string): Entry {
      const key = canonicalJson([input.systemPrompt ?? null, nonce, input.constraints ?? []]);
      if (systemCache?.key !== key) systemCache = { key, entry: systemEntry(input.systemPrompt, nonce, input.constraints ?? [], counter) };
      return systemCache.entry;
    },
    task(input: ContextInput): Entry {
      if (taskCache?.key !== input.task) taskCache = { key: input.task, entry: taskEntry(input.task, counter) };
      return taskCache.entry;
    },
    transcript(source: ContextInput["transcript"][number], index: number, nonce: string): Entry {
      const hit = transcriptCache.get(source.message);
      if (hit !== undefined && hit.id === source.id && hit.trust === source.trust && hit.nonce === nonce) {
        // Keep the moved entry, so later turns reuse its items by identity (cheap deltas).
        if (hit.entry.items[0]?.message !== index) hit.entry = reindexed(hit.entry, index);
        return hit.entry;
      }
      const entry = transcriptEntry(source, index, nonce, budgetOf, counter, setup.mediaRule);
      transcriptCache.set(source.message, { id: source.id, trust: source.trust, nonce, entry });
      return entry;
    },
  };
}

/** The digest state after a layout's frames; valid while its columns are only appended to. */
interface Checkpoint {
  readonly columns: Columns;
  readonly header: string;
  readonly frames: number;
  readonly hash: Hash;
}

/**
 * SHA-256 of the request bytes: the header frame, the layout's frames (the stable prefix)
 * and the evidence frame. The digest state after the stable prefix is kept: when the next
 * layout appends to the same columns under the same header, only its new frames are hashed.
 */
function requestDigester(): (header: string, layout: Layout, evidenceFrame: string | undefined) => string {
  let checkpoint: Checkpoint | undefined;
  return (header, layout, evidenceFrame) => {
    const { columns, count } = layout;
    let hash: Hash;
    let from = 0;
    const previous = checkpoint;
    // Resume from the checkpoint only for the same columns and header, up to what it hashed;
    // anything else rehashes from the start (the same digest, more slowly).
    if (previous !== undefined && previous.columns === columns && previous.header === header && previous.frames <= count.entries) {
      hash = previous.hash.copy();
      from = previous.frames;
    } else {
      hash = createHash("sha256");
      hash.update(header, "utf8");
    }
    for (let index = from; index < count.entries; index++) hash.update(columns.frames[index]!, "utf8");
    checkpoint = { columns, header, frames: count.entries, hash: hash.copy() };
    if (evidenceFrame !== undefined) hash.update(evidenceFrame, "utf8");
    return hash.digest("hex");
  };
}

/**
 * The layout of the input under the window: CONTEXT_OVERFLOW when mandatory state does not
 * fit; when the transcript does not, compacted extractively under the policy (one compaction
 * normally suffices; a second folds the first summary in), else CONTEXT_OVERFLOW.
 */
function fitLayout(
  setup: CompilerSetup,
  build: (compactions: readonly ContextRevision[]) => Layout,
  journaled: readonly ContextRevision[],
): { layout: Layout; made: ContextRevision[] } {
  const { config, policy, available } = setup;
  const overflow = { available, contextWindow: config.contextWindow, outputReserve: config.maxOutputTokens };
  let compactions = journaled;
  let layout = build(compactions);
  if (layout.mandatory > available) {
    throw contextOverflowError({
      reason: "context_overflow",
      what: "mandatory",
      required: layout.mandatory,
      ...overflow,
      sections: { ...layout.sections },
      compactionRequired: false,
    });
  }
  const made: ContextRevision[] = [];
  // `layout.used > available` here only saves the setup below: the loop checks it again. Two
  // passes at most: a third keeps the second summary whole and frees next to nothing, and with
  // no bound passes go on for ever (compaction-inline.mutation.test.ts).
  if (layout.used > available && policy !== undefined && policy.summarize === undefined) {
    const maxChars = summaryCharBudget(policy, available);
    const target = Math.floor(available * policy.threshold);
    for (let attempt = 0; attempt < 2 && layout.used > available; attempt++) {
      const replaced = selectCompaction(candidatesOf(layout), tailStartOf(layout), layout.used - target + summaryTokenAllowance(maxChars), policy);
      if (replaced === undefined) break;
      const compaction = makeRevision(replaced, layout.resolved, extractiveSummary({ items: replaced, maxChars }), "extractive");
      made.push(compaction);
      compactions = [...compactions, compaction];
      layout = build(compactions);
    }
  }
  if (layout.used > available) {
    throw contextOverflowError({
      reason: "context_overflow",
      what: "transcript",
      required: layout.used,
      ...overflow,
      sections: { ...layout.sections },
      compactionRequired: policy?.summarize !== undefined,
      compactionFailed: policy !== undefined && policy.summarize === undefined,
    });
  }
  return { layout, made };
}

/** A fitted layout's messages, items and artifacts, with the evidence that fits in what is left. */
interface Filled {
  readonly messages: Message[];
  readonly items: ManifestItem[];
  readonly artifacts: Artifact[];
  readonly sections: Record<Section, number>;
  readonly overhead: number;
  readonly evidenceFrame: string | undefined;
  readonly evidenceBytes: number;
}

function fillLayout(setup: CompilerSetup, input: ContextInput, layout: Layout, nonce: string): Filled {
  const { counter, available } = setup;
  const { columns, count } = layout;
  const evidence = fillEvidence(input.evidence ?? [], available - layout.used, nonce, counter, count.entries);
  // Copies of the layout's part of its columns, which later turns append to.
  const messages = columns.messages.slice(0, count.entries);
  const items: ManifestItem[] = columns.items.slice(0, count.items);
  const artifacts: Artifact[] = columns.artifacts.slice(0, count.artifacts);
  let overhead = layout.overhead;
  let evidenceFrame: string | undefined;
  let evidenceBytes = 0;
  if (evidence.included.length > 0) {
    const message = renderEvidenceMessage(evidence.included.map((entry) => entry.block));
    evidenceFrame = `${canonicalJson(message)}\n`;
    messages.push(message);
    evidenceBytes = Buffer.byteLength(evidenceFrame, "utf8");
    overhead += MESSAGE_OVERHEAD_TOKENS + counter.count(EVIDENCE_HEADING);
  }
  items.push(...evidence.items);
  for (const entry of evidence.included) artifacts.push({ hash: entry.hash, text: entry.item.text });
  return { messages, items, artifacts, sections: { ...layout.sections, evidence: evidence.tokens }, overhead, evidenceFrame, evidenceBytes };
}

function manifestOf(setup: CompilerSetup, input: ContextInput, tools: ToolsPart, nonce: string, layout: Layout, filled: Filled, requestHash: string): Manifest {
  const { config, available } = setup;
  const { sections, overhead } = filled;
  const used = Object.values(sections).reduce((sum, value) => sum + value, 0) + overhead;
  const allocation: Allocation = {
    contextWindow: config.contextWindow,
    outputReserve: config.maxOutputTokens,
    mandatory: layout.mandatory,
    sections,
    overhead,
    used,
    free: available - used,
  };
  const stableBytes = tools.frame.frameBytes + layout.bytes;
  return {
    version: MANIFEST_VERSION,
    revision: input.revision,
    contextRevision: layout.resolved.latest,
    model: config.model,
    tokenizer: setup.tokenizer,
    configDigest: setup.configDigest,
    delimiterNonce: nonce,
    header: tools.headerJson,
    tools: tools.entry.manifest.slice(),
    items: filled.items,
    allocation,
    stablePrefix: { messages: layout.count.entries, bytes: stableBytes },
    messageCount: filled.messages.length,
    requestBytes: stableBytes + filled.evidenceBytes,
    requestHash,
  };
}

/** Creates a compiler; see `ContextCompiler`. Throws CONFIG_INVALID for an invalid config. */
export function createContextCompiler(config: CompileConfig): ContextCompiler {
  const setup = setupOf(config);
  const entries = entryCaches(setup);
  const digest = requestDigester();
  let lastLayout: Layout | undefined;
  return {
    config,
    compile(input) {
      const nonce = entries.nonce(input);
      const tools = entries.tools(input, nonce);
      const fixed: Entry[] = [entries.system(input, nonce), entries.task(input)];
      const build = (compactions: readonly ContextRevision[]): Layout =>
        (lastLayout = layoutContext(
          { input, compactions, fixed, tools: tools.entry, nonce, counter: setup.counter, transcript: entries.transcript },
          lastLayout,
        ));
      const { layout, made } = fitLayout(setup, build, input.compactions ?? []);
      const filled = fillLayout(setup, input, layout, nonce);
      const manifest = manifestOf(setup, input, tools, nonce, layout, filled, digest(tools.frame.frame, layout, filled.evidenceFrame));
      const { columns, count } = layout;
      let bytes: string | undefined;
      const threshold = setup.policy === undefined ? Infinity : setup.available * setup.policy.threshold;
      return {
        request: { ...tools.header, messages: filled.messages, stablePrefixMessages: count.entries },
        manifest,
        get bytes() {
          bytes ??= tools.frame.frame + columns.frames.slice(0, count.entries).join("") + (filled.evidenceFrame ?? "");
          return bytes;
        },
        artifacts: filled.artifacts,
        // Evidence is refilled every turn; only the history counts towards compaction.
        compactionDue: layout.used > threshold,
        compactions: made,
      };
    },
  };
}

/**
 * Compiles a context: deterministic, so the same input and config give byte-identical
 * requests. For a run, keep one `createContextCompiler` across turns instead: same output,
 * cost proportional to what is new.
 *
 * @example
 * ```ts
 * const { request, manifest, bytes } = compile(input, { model: "gpt-4o", contextWindow: 128_000, maxOutputTokens: 4_096 });
 * ```
 */
export function compile(input: ContextInput, config: CompileConfig): CompileResult {
  return createContextCompiler(config).compile(input);
}
