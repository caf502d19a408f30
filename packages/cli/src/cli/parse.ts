import { parseArgs, type ParseArgsConfig } from "node:util";
import { usageError } from "./exit-codes.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Options every command takes. */
export const COMMON_OPTIONS = {
  journal: { type: "string" },
  // Read by the store opener (store/key-file.ts); declared here so every command accepts it.
  "key-file": { type: "string" },
  tenant: { type: "string" },
  // Read by the store opener (store/witness-flags.ts): the ways out of a head-witness refusal.
  "adopt-witness": { type: "boolean", default: false },
  "new-journal": { type: "boolean", default: false },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const satisfies Options;

/** `parseArgs` (strict) whose errors are usage errors (exit 2), with the positionals counted. */
type Parsed<T extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: typeof COMMON_OPTIONS & T; allowPositionals: true; strict: true }>>;

export function parse<T extends Options>(args: readonly string[], options: T, positionals: { min: number; max: number; usage: string }): Parsed<T> {
  let parsed: Parsed<T>;
  try {
    parsed = parseArgs({ args: [...args], options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true }) as Parsed<T>;
  } catch (error) {
    throw usageError((error as Error).message.split("\n")[0]!, positionals.usage);
  }
  if (!(parsed.values as { help?: boolean }).help && (parsed.positionals.length < positionals.min || parsed.positionals.length > positionals.max)) {
    throw usageError(
      `expected ${positionals.min === positionals.max ? positionals.min : `${positionals.min}–${positionals.max}`} argument(s)`,
      positionals.usage,
    );
  }
  return parsed;
}

/** A positive integer option value, or a usage error naming the option. */
export function positiveInteger(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1) throw usageError(`${name} must be a positive integer, not ${JSON.stringify(value)}`);
  return number;
}
