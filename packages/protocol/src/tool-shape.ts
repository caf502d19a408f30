import { YokeError } from "./errors.js";

const SIDE_EFFECT_CLASSES = ["none", "idempotent", "reversible", "irreversible"] as const;
const OPTIONAL_FUNCTIONS = ["access", "policy", "reconcile", "compensate"] as const;

/**
 * Checks the fields of a tool that the type system checks only in TypeScript: plain
 * JavaScript (or a hand-made tool object) can omit them, and the mistake would otherwise
 * surface as a schema error in the middle of a run that names neither tool nor field.
 * Throws CONFIG_INVALID naming the tool and the field.
 */
export function assertToolShape(tool: unknown, where = "defineTool"): void {
  if (typeof tool !== "object" || tool === null) {
    throw new YokeError("CONFIG_INVALID", `${where}: a tool must be an object`, { details: { field: "tool" } });
  }
  const candidate = tool as Record<string, unknown>;
  const name = candidate.name;
  if (typeof name !== "string" || name === "") {
    throw invalidField(undefined, "name", "must be a non-empty string", where);
  }
  if (typeof candidate.description !== "string") {
    throw invalidField(name, "description", "must be a string", where);
  }
  if (!(SIDE_EFFECT_CLASSES as readonly unknown[]).includes(candidate.sideEffect)) {
    const given = candidate.sideEffect === undefined ? "is missing" : `is ${JSON.stringify(candidate.sideEffect)}`;
    throw invalidField(name, "sideEffect", `${given}; it must be one of ${SIDE_EFFECT_CLASSES.join(", ")}`, where);
  }
  if (typeof candidate.execute !== "function") {
    throw invalidField(name, "execute", "must be a function", where);
  }
  for (const field of OPTIONAL_FUNCTIONS) {
    if (candidate[field] !== undefined && typeof candidate[field] !== "function") {
      throw invalidField(name, field, "must be a function when given", where);
    }
  }
}

function invalidField(tool: string | undefined, field: string, problem: string, where: string): YokeError {
  const subject = tool === undefined ? "a tool" : `tool ${JSON.stringify(tool)}`;
  return new YokeError("CONFIG_INVALID", `${where}: ${subject}: ${field} ${problem}`, {
    details: tool === undefined ? { field } : { tool, field },
  });
}
