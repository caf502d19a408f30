import { existsSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { YokeError } from "@yoke/protocol";
import { z } from "zod/v4";
import type { JsonObject, SuiteData } from "./types.js";

const predicate = z.object({ kind: z.string().min(1) }).passthrough();
const groundTruthCall = z
  .object({ function: z.string().min(1), args: z.record(z.string(), z.unknown()), argTemplates: z.record(z.string(), z.string()).optional() })
  .passthrough();

/*
 * What the runner relies on in each file, checked before a run starts; the data set's other
 * fields (notes, sources, descriptions of effects) pass through untouched.
 */
const SCHEMAS = {
  "environment.json": z.record(z.string(), z.unknown()),
  "injection-vectors.json": z.object({
    vectors: z.array(
      z.object({ id: z.string().min(1), default: z.string(), effectiveDefault: z.string().optional(), placeholder: z.string().optional() }).passthrough(),
    ),
  }),
  "tools.json": z.object({
    suite: z.string().min(1).optional(),
    tools: z.array(
      z
        .object({
          name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "a tool name is 1 to 64 letters, digits, _ or -"),
          modelFacingDescription: z.string(),
          access: z.enum(["read-only", "mutating"]),
          parameters: z.array(
            z.object({ name: z.string().min(1), type: z.string().min(1), required: z.boolean(), description: z.string().optional() }).passthrough(),
          ),
        })
        .passthrough(),
    ),
  }),
  "user-tasks.json": z.object({
    userTasks: z.array(
      z
        .object({
          id: z.string().min(1),
          prompt: z.string(),
          groundTruth: z.array(groundTruthCall),
          groundTruthOutput: z.string().optional(),
          utilityCheck: predicate,
          injectionVectorsSeen: z.array(z.string()),
        })
        .passthrough(),
    ),
  }),
  "injection-tasks.json": z.object({
    injectionTasks: z.array(
      z
        .object({
          id: z.string().min(1),
          goal: z.string().min(1),
          groundTruth: z.array(groundTruthCall),
          securityCheck: predicate,
          effectBased: z.boolean().optional(),
          securityBasis: z.string().optional(),
          plants: z.array(z.object({ path: z.string(), append: z.unknown() }).passthrough()).optional(),
        })
        .passthrough(),
    ),
  }),
} as const;

type FileName = keyof typeof SCHEMAS;

/** Reads and validates one JSON file of a suite folder: CONFIG_INVALID naming the file (and the field) when it is missing or malformed. */
export function readSuiteFile<Name extends FileName>(dir: string, file: Name, as: string = file): z.infer<(typeof SCHEMAS)[Name]> {
  return readJsonFile(join(dir, as), SCHEMAS[file]) as z.infer<(typeof SCHEMAS)[Name]>;
}

/** A JSON file read and checked against `schema`: CONFIG_INVALID with `details.file` (and `details.field`) when it is missing, not JSON or invalid. */
export function readJsonFile<T>(path: string, schema: z.ZodType<T>): T {
  if (!existsSync(path)) {
    throw new YokeError("CONFIG_INVALID", `no file at ${path}`, { details: { file: path, field: null } });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new YokeError("CONFIG_INVALID", `${path} is not JSON: ${(error as Error).message}`, { details: { file: path, field: null } });
  }
  return validated(path, schema, parsed);
}

/** `value` checked against `schema`, or CONFIG_INVALID whose details name the file, the first bad field and every issue. */
export function validated<T>(file: string, schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({ field: fieldOf(issue.path), message: issue.message }));
  const first = issues[0]!;
  throw new YokeError("CONFIG_INVALID", `${file}: ${first.field === "" ? "the document" : first.field}: ${first.message}`, {
    details: { file, field: first.field, issues },
  });
}

/** A zod issue path as the data set's README writes paths: `userTasks[3].prompt`. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path.map((segment, index) => (typeof segment === "number" ? `[${segment}]` : `${index === 0 ? "" : "."}${String(segment)}`)).join("");
}

/**
 * A suite folder in the AgentDojo JSON format (`environment.json`, `injection-vectors.json`,
 * `tools.json`, `user-tasks.json`, `injection-tasks.json`, and optionally
 * `yoke-injection-tasks.json`, whose tasks follow upstream's), read and validated now. The
 * suite is named by `tools.json`'s `suite`, or else by the folder. Every file is checked
 * before anything runs: a missing or malformed one is CONFIG_INVALID with `details.file`
 * and `details.field`; so is a user task that names a vector the suite does not have, or
 * two tasks with one id.
 *
 * @example
 * ```ts
 * const suite = loadSuite("../shared/security/agentdojo/workspace");
 * suite.name; // "workspace"
 * ```
 */
export function loadSuite(dir: string): SuiteData {
  const folder = resolve(dir);
  if (!existsSync(folder)) throw new YokeError("CONFIG_INVALID", `no suite folder at ${folder}`, { details: { file: folder, field: null } });
  const environment = readSuiteFile(folder, "environment.json");
  const { vectors } = readSuiteFile(folder, "injection-vectors.json");
  const tools = readSuiteFile(folder, "tools.json");
  const { userTasks } = readSuiteFile(folder, "user-tasks.json");
  const { injectionTasks } = readSuiteFile(folder, "injection-tasks.json");
  const extra = existsSync(join(folder, "yoke-injection-tasks.json"))
    ? readSuiteFile(folder, "injection-tasks.json", "yoke-injection-tasks.json").injectionTasks
    : [];
  const suite = {
    name: tools.suite ?? basename(folder),
    environment: environment as JsonObject,
    vectors,
    tools: tools.tools,
    userTasks,
    injectionTasks: [...injectionTasks, ...extra],
  } as unknown as SuiteData;
  checkReferences(folder, suite);
  return suite;
}

function checkReferences(folder: string, suite: SuiteData): void {
  const vectorIds = new Set(suite.vectors.map((vector) => vector.id));
  for (const [index, task] of suite.userTasks.entries()) {
    const unknown = task.injectionVectorsSeen.find((id) => !vectorIds.has(id));
    if (unknown !== undefined) {
      throw new YokeError("CONFIG_INVALID", `user task ${task.id} sees vector ${unknown}, which injection-vectors.json does not define`, {
        details: { file: join(folder, "user-tasks.json"), field: `userTasks[${index}].injectionVectorsSeen` },
      });
    }
  }
  for (const [file, key, tasks] of [
    ["user-tasks.json", "userTasks", suite.userTasks],
    ["injection-tasks.json", "injectionTasks", suite.injectionTasks],
  ] as const) {
    const seen = new Set<string>();
    for (const [index, task] of tasks.entries()) {
      if (seen.has(task.id)) {
        throw new YokeError("CONFIG_INVALID", `two tasks named ${task.id} in ${file}`, { details: { file: join(folder, file), field: `${key}[${index}].id` } });
      }
      seen.add(task.id);
    }
  }
  if (suite.userTasks.length === 0) {
    throw new YokeError("CONFIG_INVALID", "the suite has no user tasks", { details: { file: join(folder, "user-tasks.json"), field: "userTasks" } });
  }
}
