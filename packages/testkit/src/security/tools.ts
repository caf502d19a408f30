import { YokeError, defineTool, jsonSchema, type AnyTool } from "@yoke/protocol";
import { coerceArguments, parametersSchema } from "./coerce.js";
import { renderOutput } from "./render.js";
import { bankingImplementations } from "./banking-tools.js";
import { slackImplementations } from "./slack-tools.js";
import type { SecurityEnvironment, ToolImplementation } from "./tool-support.js";
import type { JsonObject, SuiteData, SuiteName } from "./types.js";

export { SimulatedToolError } from "./tool-support.js";
export type { SecurityEnvironment, ToolImplementation } from "./tool-support.js";

const IMPLEMENTATIONS: Record<SuiteName, Record<string, ToolImplementation>> = { banking: bankingImplementations, slack: slackImplementations };

/**
 * The suite's tools as protocol `defineTool` tools over `env`, in the suite's registration
 * order, with the model-facing descriptions and parameter descriptions of the data set,
 * lenient argument coercion (upstream's lax validation), upstream's error texts, outputs
 * rendered with injected text unaltered, honest side-effect classes, `policy` facts
 * (verb, resource, destination arguments with their roles) and `trustedOutputFields` where
 * a field is the system's own record.
 *
 * @example
 * ```ts
 * const suite = agentDojoSuite("banking");
 * const env = { state: buildEnvironment(suite, injectionValues(suite)), dispatched: [] };
 * const tools = agentDojoTools(suite, env);
 * const harness = createHarness({ provider, tools });
 * ```
 */
export function agentDojoTools(suite: SuiteData, env: SecurityEnvironment): AnyTool[] {
  const implementations = IMPLEMENTATIONS[suite.name];
  return suite.tools.map((description) => {
    const implementation = implementations[description.name];
    if (implementation === undefined) {
      throw new YokeError("CONFIG_INVALID", `no implementation for ${suite.name} tool ${description.name}`, {
        details: { suite: suite.name, tool: description.name },
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
      sideEffect: implementation.sideEffect,
      maxAttempts: 1,
      timeoutMs: 10_000,
      dataClassification: "confidential",
      network: { egress: "none" },
      owner: `agentdojo-${suite.name}`,
      access: () =>
        implementation.sideEffect === "none" ? { reads: [`${suite.name}:*`], writes: [] } : { reads: [`${suite.name}:*`], writes: [`${suite.name}:*`] },
      policy: (args: JsonObject) => implementation.policy(env, args),
      ...(implementation.trustedOutputFields === undefined ? {} : { trustedOutputFields: implementation.trustedOutputFields }),
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
