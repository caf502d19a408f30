import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { JournalKey, JournalKeyProvider } from "@yoke/protocol";
import { usageError } from "../cli/exit-codes.js";

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MIN_KEY_BYTES = 16;

/**
 * The key file a command line names: `--key-file FILE` (every command takes it), else
 * `$YOKE_JOURNAL_KEY_FILE`; undefined for an unkeyed journal. The command's own parse checks
 * the rest of its arguments.
 */
export function keyFileOf(args: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const { values } = parseArgs({ args: [...args], options: { "key-file": { type: "string" } }, strict: false, allowPositionals: true });
  const fromArgs = values["key-file"];
  if (typeof fromArgs === "string" && fromArgs !== "") return fromArgs;
  const fromEnv = env.YOKE_JOURNAL_KEY_FILE;
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : undefined;
}

/**
 * The keys of a keyed journal, read from a JSON file (`--key-file`, `$YOKE_JOURNAL_KEY_FILE`):
 *
 * ```json
 * { "keys": [
 *   { "keyId": "2026-11", "key": "<base64, at least 16 bytes>" },
 *   { "keyId": "2026-12", "key": "<base64>", "tenantId": "tenant_a" }
 * ] }
 * ```
 *
 * A key without `tenantId` is every tenant's. Each key verifies the events it sealed; a
 * tenant's last listed key seals what the CLI appends (`import`, `resume`). A file that cannot
 * be read or does not have this shape is a usage error (CONFIG_INVALID) naming it.
 */
export function readKeyFile(path: string): JournalKeyProvider {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw invalid(path, `cannot be read (${(error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid(path, 'is not JSON: expected { "keys": [{ "keyId", "key" (base64), "tenantId"? }] }');
  }
  const entries = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(entries) || entries.length === 0) throw invalid(path, 'has no "keys": expected a non-empty array of { keyId, key, tenantId? }');
  const keys = entries.map((entry: unknown, index) => keyOf(path, entry, index));
  const forTenant = (tenantId: string) => keys.filter((key) => key.tenantId === undefined || key.tenantId === tenantId);
  return {
    keyFor(tenantId) {
      const current = forTenant(tenantId).at(-1);
      // The journal turns a throw here into JOURNAL_KEY_UNAVAILABLE naming the tenant.
      if (current === undefined) throw invalid(path, `holds no key for tenant ${tenantId}`);
      return current.key;
    },
    keyById(tenantId, keyId) {
      return forTenant(tenantId).find((key) => key.key.keyId === keyId)?.key;
    },
  };
}

function keyOf(path: string, entry: unknown, index: number): { tenantId: string | undefined; key: JournalKey } {
  const { keyId, key, tenantId } = (typeof entry === "object" && entry !== null ? entry : {}) as Record<string, unknown>;
  if (typeof keyId !== "string" || !KEY_ID.test(keyId)) throw invalid(path, `keys[${index}].keyId must be 1-64 characters of [A-Za-z0-9._-]`);
  if (tenantId !== undefined && (typeof tenantId !== "string" || tenantId === "")) throw invalid(path, `keys[${index}].tenantId must be a non-empty string`);
  if (typeof key !== "string" || !BASE64.test(key)) throw invalid(path, `keys[${index}].key must be base64`);
  const material = Buffer.from(key, "base64");
  if (material.byteLength < MIN_KEY_BYTES) throw invalid(path, `keys[${index}].key must be at least ${MIN_KEY_BYTES} bytes (use 32 random bytes)`);
  return { tenantId, key: { keyId, key: new Uint8Array(material) } };
}

function invalid(path: string, why: string) {
  // Never the key material: only the file's name and what is wrong with it.
  return usageError(`--key-file ${path} ${why}`);
}
