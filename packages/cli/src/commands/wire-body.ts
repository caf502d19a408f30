import { YokeError, type JsonValue, type ModelRequest } from "@yoke/protocol";
import { usageError } from "../cli/exit-codes.js";

/** The providers `yoke request --wire` rebuilds a body for (`ai-sdk` is named only to say it cannot). */
export const WIRE_PROVIDERS = ["openai", "openai-chat", "anthropic", "ai-sdk"] as const;

/** A provider's wire body, rebuilt by its adapter from a journaled request. */
export interface WireBody {
  readonly provider: string;
  /** The API whose body this is (`responses`, `chat`, `messages`). */
  readonly api: string;
  readonly model: string;
  /** The JSON body the adapter's SDK sends; its bytes are `JSON.stringify(body)`. */
  readonly body: { [key: string]: JsonValue };
}

/**
 * The body the adapter for `provider` sends for `request` to `model` (a streaming adapter with
 * its model family's default capabilities), rebuilt by the adapter's own pure function
 * (`openAIWireBody`, `anthropicWireBody`); the adapter package is loaded only here. The AI SDK
 * bridge cannot: the AI SDK provider it wraps builds the body.
 */
export async function wireBodyOf(provider: string, request: ModelRequest, model: string): Promise<WireBody> {
  switch (provider) {
    case "openai":
    case "openai-chat": {
      const api = provider === "openai" ? "responses" : "chat";
      const { openAIWireBody } = await load<typeof import("@yoke/provider-openai")>("@yoke/provider-openai", () => import("@yoke/provider-openai"));
      return { provider: "openai", api, model, body: openAIWireBody(request, { model, api }) };
    }
    case "anthropic": {
      const { anthropicWireBody } = await load<typeof import("@yoke/provider-anthropic")>("@yoke/provider-anthropic", () => import("@yoke/provider-anthropic"));
      return { provider: "anthropic", api: "messages", model, body: anthropicWireBody(request, { model }) };
    }
    case "ai-sdk":
      throw usageError(
        "--wire ai-sdk: the AI SDK bridge cannot rebuild a wire body (the AI SDK provider it wraps builds it); --bytes prints the normalized request it was given",
      );
    default:
      throw usageError(`--wire must be one of ${WIRE_PROVIDERS.join(", ")}, not ${JSON.stringify(provider)}`);
  }
}

async function load<T>(name: string, importer: () => Promise<unknown>): Promise<T> {
  try {
    return (await importer()) as T;
  } catch (error) {
    throw new YokeError("DEPENDENCY_MISSING", `--wire needs ${name} (and its SDK) to rebuild the body: install it`, {
      cause: error,
      details: { package: name },
    });
  }
}
