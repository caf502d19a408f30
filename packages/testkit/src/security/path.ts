import { YokeError } from "@yoke/protocol";

/**
 * The segments of a README path: `name`, `.name`, `["any key"]`, `[n]` (negative from the
 * end); `""` is the scope itself. Throws on a malformed path.
 *
 * @example
 * ```ts
 * parsePath('web.web_content["www.x.com/a"]'); // ["web", "web_content", "www.x.com/a"]
 * parsePath("slack.channel_inbox.general[-1].body"); // ["slack", "channel_inbox", "general", -1, "body"]
 * ```
 */
export function parsePath(path: string): (string | number)[] {
  const segments: (string | number)[] = [];
  let at = 0;
  while (at < path.length) {
    const rest = path.slice(at);
    const name = /^\.?([A-Za-z0-9_]+)/.exec(rest);
    if (name !== null) {
      segments.push(name[1]!);
      at += name[0].length;
      continue;
    }
    const index = /^\[(-?\d+)\]/.exec(rest);
    if (index !== null) {
      segments.push(Number(index[1]));
      at += index[0].length;
      continue;
    }
    const key = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
    if (key !== null) {
      segments.push(JSON.parse(key[1]!) as string);
      at += key[0].length;
      continue;
    }
    throw new YokeError("CONFIG_INVALID", `malformed predicate path ${JSON.stringify(path)} at ${at}`, { details: { path, at } });
  }
  return segments;
}
