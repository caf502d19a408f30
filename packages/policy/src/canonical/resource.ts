/**
 * Resource names as a backend resolves them, so that a scope check compares what a name
 * means and not how it is spelt: `file:/reports/../secrets/prod.env` is `file:/secrets/prod.env`.
 *
 * - a URL's scheme (`https:`, `file:` before `//`) is lower case; a URL nested in the body
 *   (`url:https://…`) is canonicalized the same way; other schemes (`file:/…`, `account:`)
 *   are names, kept as written;
 * - a body holding `/` or `%` is a path: percent-escapes are decoded (`%2F` is a separator,
 *   `%2e%2e` is a dot segment), duplicate separators collapse, `.` and `..` segments are
 *   resolved;
 * - a body starting with `//` has an authority: the host is lower case without trailing dots;
 *   the query and fragment are kept as written.
 *
 * What cannot be resolved without guessing is refused (fail closed): a `..` above the root,
 * malformed percent-encoding or escapes that decode to another escape (double encoding), a
 * backslash (a separator on some backends, a character on others), a control character, or
 * user info in an authority (`https://good.example@evil.example/`).
 */

/** A canonical name, or why there is none. */
export type CanonicalResource = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly reason: string };

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const NESTED_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const ESCAPE = /%[0-9A-Fa-f]{2}/;

/**
 * The canonical form of an exact resource name.
 *
 * @example
 * ```ts
 * canonicalResource("file:/reports/2026/../q3.pdf"); // { ok: true, value: "file:/reports/q3.pdf" }
 * canonicalResource("file:/reports/%2e%2e/%2e%2e/etc/passwd"); // { ok: false, reason: "…above its root" }
 * ```
 */
export function canonicalResource(resource: string): CanonicalResource {
  return canonical(resource, false);
}

/**
 * The canonical form of a capability's resource pattern: an exact name, or a prefix ending in
 * `*` whose prefix is canonicalized as the start of a name (its last, unfinished segment may
 * not be `.` or `..`, and an unfinished host keeps its trailing dots).
 *
 * @example
 * ```ts
 * canonicalResourcePattern("file:/reports//*"); // { ok: true, value: "file:/reports/*" }
 * ```
 */
export function canonicalResourcePattern(pattern: string): CanonicalResource {
  if (!pattern.endsWith("*")) return canonical(pattern, false);
  const prefix = canonical(pattern.slice(0, -1), true);
  return prefix.ok ? { ok: true, value: `${prefix.value}*` } : prefix;
}

function refuse(reason: string): CanonicalResource {
  return { ok: false, reason };
}

function canonical(value: string, prefix: boolean): CanonicalResource {
  if (typeof value !== "string") return refuse("the resource is not a string");
  if (CONTROL.test(value)) return refuse("the resource holds a control character");
  if (value.includes("\\")) return refuse("the resource holds a backslash, a path separator on some backends");
  const scheme = SCHEME.exec(value);
  if (scheme === null) return body(value, prefix);
  const text = value.slice(scheme[0].length);
  const rest = body(text, prefix);
  // A URL scheme (one before "//") is case-insensitive; other schemes are names as written.
  const name = text.startsWith("//") ? scheme[1]!.toLowerCase() : scheme[1]!;
  return rest.ok ? { ok: true, value: `${name}:${rest.value}` } : rest;
}

function body(value: string, prefix: boolean): CanonicalResource {
  if (NESTED_URL.test(value)) return canonical(value, prefix);
  if (value.startsWith("//")) return authority(value.slice(2), prefix);
  if (!value.includes("/") && !value.includes("%")) return { ok: true, value };
  return path(value, prefix);
}

function authority(value: string, prefix: boolean): CanonicalResource {
  const end = value.search(/[/?#]/);
  const raw = end < 0 ? value : value.slice(0, end);
  if (raw.includes("@")) return refuse("the resource's authority holds user info");
  if (raw.includes("%")) return refuse("the resource's host is percent-encoded");
  const colon = raw.lastIndexOf(":");
  const port = colon < 0 || raw.startsWith("[") ? "" : raw.slice(colon);
  if (port !== "" && !/^:\d*$/.test(port)) return refuse("the resource's port is not a number");
  let host = (port === "" ? raw : raw.slice(0, colon)).toLowerCase();
  // An unfinished host in a prefix pattern keeps its dots: "example.*" must not become "example*".
  if (!(prefix && end < 0)) host = host.replace(/\.+$/, "");
  if (end < 0) return { ok: true, value: `//${host}${port}` };
  const tail = value.slice(end);
  const query = tail.search(/[?#]/);
  const pathPart = query < 0 ? tail : tail.slice(0, query);
  const resolved = pathPart === "" ? { ok: true as const, value: "" } : path(pathPart, prefix && query < 0);
  if (!resolved.ok) return resolved;
  return { ok: true, value: `//${host}${port}${resolved.value}${query < 0 ? "" : tail.slice(query)}` };
}

function path(value: string, prefix: boolean): CanonicalResource {
  const decoded = percentDecoded(value);
  if (!decoded.ok) return decoded;
  const text = decoded.value;
  if (CONTROL.test(text) || text.includes("\\")) return refuse("the resource's percent-escapes decode to a control character or a backslash");
  if (ESCAPE.test(text)) return refuse("the resource is percent-encoded twice");
  const absolute = text.startsWith("/");
  const segments = text.split("/");
  const last = segments[segments.length - 1]!;
  if (prefix && (last === "." || last === "..")) return refuse("the resource pattern's unfinished last segment is a dot segment");
  const stack: string[] = [];
  for (const segment of segments) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (stack.length === 0) return refuse("the resource's path climbs above its root");
      stack.pop();
    } else stack.push(segment);
  }
  // A path ending in "/", "/." or "/.." names a directory: keep the separator.
  const directory = text.endsWith("/") || last === "." || last === "..";
  const joined = stack.join("/");
  const trailing = directory && joined !== "" ? "/" : "";
  return { ok: true, value: `${absolute ? "/" : ""}${joined}${trailing}` };
}

const DECODER = new TextDecoder("utf-8", { fatal: true });

function percentDecoded(value: string): CanonicalResource {
  if (!value.includes("%")) return { ok: true, value };
  let out = "";
  let bytes: number[] = [];
  const flush = (): boolean => {
    if (bytes.length === 0) return true;
    try {
      out += DECODER.decode(Uint8Array.from(bytes));
    } catch {
      return false;
    }
    bytes = [];
    return true;
  };
  for (let index = 0; index < value.length; index++) {
    const char = value[index]!;
    if (char !== "%") {
      if (!flush()) return refuse("the resource's percent-escapes are not UTF-8");
      out += char;
      continue;
    }
    const hex = value.slice(index + 1, index + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return refuse("the resource holds a malformed percent-escape");
    bytes.push(Number.parseInt(hex, 16));
    index += 2;
  }
  if (!flush()) return refuse("the resource's percent-escapes are not UTF-8");
  return { ok: true, value: out };
}
