import { YokeError, defineTool, jsonSchema, type AnyTool } from "@yoke/protocol";
import { coerceArguments, parametersSchema } from "./coerce.js";
import { policyFactsOf, type ToolDeclarations } from "./declarations.js";
import { defaultDeclarationsFor } from "./default-policy.js";
import { builtInHandlers, checkHandlers, type EnvironmentPreparer, type ToolHandlers } from "./handlers.js";
import { renderOutput } from "./render.js";
import type { SecurityEnvironment } from "./tool-support.js";
import type { JsonObject, SuiteData } from "./types.js";

export { SimulatedToolError } from "./tool-support.js";
export type { SecurityEnvironment, ToolImplementation } from "./tool-support.js";

/** Where a suite's tools come from: their implementations and their declarations. */
export interface SuiteToolsOptions {
  /** The suite's tool implementations; default: the testkit's built-in handlers for the suite's name. */
  readonly handlers?: ToolHandlers;
  /** The policy facts of the suite's tools; default: derived from `tools.json` alone (`defaultDeclarationsFor`). */
  readonly declarations?: ToolDeclarations;
  /** What the simulation derives from a fresh environment before each run; default: the built-in suite's, when its built-in handlers are used. */
  readonly prepare?: EnvironmentPreparer;
}

/**
 * The suite's tools as protocol `defineTool` tools over `env`, in the suite's registration
 * order, with the model-facing descriptions and parameter descriptions of the data set,
 * lenient argument coercion (upstream's lax validation), upstream's error texts, outputs
 * rendered with injected text unaltered, and what `declarations` say about each tool for
 * policy: its side-effect class, how sensitive its output is (`dataClassification`, default
 * `confidential`), the facts of each call (verb, resource, destination arguments with their
 * roles, payloads and whether they leave the account) and `trustedOutputFields`. A tool without an implementation
 * or a declaration is CONFIG_INVALID, naming it.
 *
 * @example
 * ```ts
 * const suite = agentDojoSuite("banking");
 * const env = { state: buildEnvironment(suite, injectionValues(suite)), dispatched: [] };
 * const tools = agentDojoTools(suite, env, { declarations: loadToolDeclarations("policies/banking.tools.json") });
 * const harness = createHarness({ provider, tools });
 * ```
 */
export function agentDojoTools(suite: SuiteData, env: SecurityEnvironment, options: SuiteToolsOptions = {}): AnyTool[] {
  const handlers = checkHandlers(suite, options.handlers ?? builtInHandlers(suite.name), options.handlers === undefined ? undefined : "the handlers given");
  const declarations = options.declarations ?? defaultDeclarationsFor(suite.tools, suite.name);
  return suite.tools.map((description) => {
    const implementation = handlers[description.name]!;
    const declaration = declarations.tools[description.name];
    if (declaration === undefined) {
      throw new YokeError("CONFIG_INVALID", `no declaration for ${suite.name} tool ${description.name}`, {
        details: { suite: suite.name, tool: description.name, missing: [description.name] },
      });
    }
    const input = jsonSchema<JsonObject>(parametersSchema(description.parameters), {
      validate: (value) => {
        const coerced = coerceArguments(description.parameters, value);
        return coerced.ok ? { success: true, value: coerced.value } : { success: false, error: new Error(`ValidationError: ${coerced.error}`) };
      },
    });
    return defineTool({
      name: description.name,
      description: description.modelFacingDescription,
      input,
      sideEffect: declaration.sideEffect,
      maxAttempts: 1,
      timeoutMs: 10_000,
      dataClassification: declaration.dataClassification ?? "confidential",
      network: { egress: "none" },
      owner: `agentdojo-${suite.name}`,
      access: () =>
        declaration.sideEffect === "none" ? { reads: [`${suite.name}:*`], writes: [] } : { reads: [`${suite.name}:*`], writes: [`${suite.name}:*`] },
      policy: (args: JsonObject) => policyFactsOf(declaration, env, args),
      ...(declaration.trustedOutputFields === undefined ? {} : { trustedOutputFields: declaration.trustedOutputFields }),
      execute: async (args: JsonObject) => {
        env.dispatched.push({ function: description.name, args: structuredClone(args) });
        const result = implementation.run(env, args);
        const content = implementation.render?.(result, args) ?? renderOutput(result);
        const output = implementation.structured?.(result, env) ?? result;
        return output !== null && typeof output === "object" ? { content, output } : content;
      },
    });
  });
}
