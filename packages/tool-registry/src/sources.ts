import { YokeError, type SourceRegistrationOptions, type SourceToolDefinition, type ToolRevisionV1, type ToolSourceV1 } from "@yoke/protocol";
import { normalizeCapabilities, revisionOf } from "./digests.js";
import { remoteDeclarationOf } from "./remote-tool.js";

/** A source the registry connected: the names it offers now, its re-list queue, and whether its last re-list failed. */
export interface ConnectedSource {
  readonly source: ToolSourceV1;
  readonly options: SourceRegistrationOptions;
  readonly names: Set<string>;
  queue: Promise<void>;
  unsubscribe: () => void;
  failure?: unknown;
}

const asSourceError = (source: ToolSourceV1, what: string, error: unknown): YokeError =>
  YokeError.isInstance(error)
    ? error
    : new YokeError("TOOL_SOURCE_UNAVAILABLE", `the tool source could not ${what}: ${error instanceof Error ? error.message : String(error)}`, {
        details: { origin: source.origin },
        cause: error,
      });

/** Connects a source and lists its tools as revisions; closes it again when that fails. */
export async function connectSource(source: ToolSourceV1, options: SourceRegistrationOptions): Promise<ToolRevisionV1[]> {
  try {
    await source.connect();
  } catch (error) {
    await source.close().catch(() => undefined);
    throw asSourceError(source, "start", error);
  }
  try {
    return await listRevisions(source, options);
  } catch (error) {
    await source.close().catch(() => undefined);
    throw error;
  }
}

/** What the source lists now, as revisions: origin the source's, contract the registering code's. */
export async function listRevisions(source: ToolSourceV1, options: SourceRegistrationOptions): Promise<ToolRevisionV1[]> {
  let listed: readonly SourceToolDefinition[];
  try {
    listed = await source.list();
  } catch (error) {
    throw asSourceError(source, "list its tools", error);
  }
  if (!Array.isArray(listed)) throw new YokeError("TOOL_SOURCE_INVALID", "the tool source's listing is not a list", { details: { origin: source.origin } });
  const seen = new Set<string>();
  return listed.map((definition) => {
    if (typeof definition !== "object" || definition === null || typeof definition.name !== "string") {
      throw new YokeError("TOOL_SOURCE_INVALID", "the tool source lists a tool without a name", { details: { origin: source.origin } });
    }
    if (seen.has(definition.name)) {
      throw new YokeError("TOOL_SOURCE_INVALID", `the tool source lists ${definition.name} twice`, {
        details: { origin: source.origin, tool: definition.name },
      });
    }
    seen.add(definition.name);
    const declared = options.tools?.[definition.name];
    return revisionOf(remoteDeclarationOf(source, definition, declared), {
      origin: source.origin,
      trustDomain: options.trustDomain,
      capabilities: normalizeCapabilities([...(options.capabilities ?? []), ...(declared?.capabilities ?? [])]),
      ...(definition.hints === undefined ? {} : { hints: definition.hints }),
      ...(definition.outputSchema === undefined ? {} : { outputSchema: definition.outputSchema }),
    });
  });
}
