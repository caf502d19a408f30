import { YokeError } from "@yoke/protocol";

/** What `pnpm security` was asked to run. */
export interface SecurityArgs {
  /** Suite folders in the AgentDojo JSON format; none: the dev suites. */
  readonly suites: readonly string[];
  /** A policy document for every suite run; none: the shipped policy of a dev suite, else the default derived from `tools.json`. */
  readonly policy?: string;
  /** Tool declarations for the policy; none: `<policy>.tools.json` beside the policy when it exists, else derived from `tools.json`. */
  readonly tools?: string;
  /** A module exporting the suite's tool implementations; none: the testkit's built-in handlers for the suite's name. */
  readonly handlers?: string;
  /** Where to write the JSON report. */
  readonly json?: string;
  /** Use the policy derived from `tools.json` even where a shipped policy exists. */
  readonly defaultPolicy: boolean;
  /** Only these user tasks / injection tasks (ids). */
  readonly userTasks?: readonly string[];
  readonly injectionTasks?: readonly string[];
  /** Only these modes. */
  readonly modes?: readonly string[];
}

export const USAGE = `usage: pnpm security [--suite <dir>]… [--policy <file>] [--tools <file>] [--handlers <file.ts>] [--json <out>]
                     [--default-policy] [--user-tasks <id,…>] [--injection-tasks <id,…>] [--modes <mode,…>]`;

const VALUED = new Set(["--suite", "--policy", "--tools", "--handlers", "--json", "--user-tasks", "--injection-tasks", "--modes"]);

/**
 * Parses the command line of `pnpm security`: CONFIG_INVALID (with the usage) for an unknown
 * flag, a flag without its value, or a single-valued flag given twice.
 */
export function parseSecurityArgs(argv: readonly string[]): SecurityArgs {
  const suites: string[] = [];
  const single = new Map<string, string>();
  let defaultPolicy = false;
  for (let at = 0; at < argv.length; at += 1) {
    const flag = argv[at]!;
    if (flag === "--") continue;
    if (flag === "--default-policy") {
      defaultPolicy = true;
      continue;
    }
    const [name, inline] =
      flag.startsWith("--") && flag.includes("=") ? [flag.slice(0, flag.indexOf("=")), flag.slice(flag.indexOf("=") + 1)] : [flag, undefined];
    if (!VALUED.has(name)) throw new YokeError("CONFIG_INVALID", `unknown argument ${JSON.stringify(flag)}\n${USAGE}`, { details: { field: flag } });
    const value = inline ?? argv[(at += 1)];
    if (value === undefined || value === "" || (inline === undefined && value.startsWith("--"))) {
      throw new YokeError("CONFIG_INVALID", `${name} needs a value\n${USAGE}`, { details: { field: name } });
    }
    if (name === "--suite") suites.push(value);
    else if (single.has(name)) throw new YokeError("CONFIG_INVALID", `${name} given twice\n${USAGE}`, { details: { field: name } });
    else single.set(name, value);
  }
  const list = (name: string) =>
    single
      .get(name)
      ?.split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
  const optional = <K extends string>(key: K, value: readonly string[] | string | undefined) =>
    value === undefined ? {} : ({ [key]: value } as Record<K, typeof value>);
  if (defaultPolicy && single.has("--policy")) {
    throw new YokeError("CONFIG_INVALID", `--default-policy and --policy exclude each other\n${USAGE}`, { details: { field: "--default-policy" } });
  }
  return {
    suites,
    defaultPolicy,
    ...optional("policy", single.get("--policy")),
    ...optional("tools", single.get("--tools")),
    ...optional("handlers", single.get("--handlers")),
    ...optional("json", single.get("--json")),
    ...optional("userTasks", list("--user-tasks")),
    ...optional("injectionTasks", list("--injection-tasks")),
    ...optional("modes", list("--modes")),
  } as SecurityArgs;
}
