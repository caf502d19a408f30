import type { CommandContext } from "../cli/context.js";
import { YokeError } from "@yoke/protocol";
import { parse } from "../cli/parse.js";

export const VIEW_USAGE = "yoke view [<run>] [--port N] [--tenant T] [--journal FILE]";

/** `yoke view [<run>]`: the run viewer (wired to the viewer's startViewer once it lands). */
export async function viewCommand(context: CommandContext): Promise<number> {
  const { values } = parse(context.args, { port: { type: "string" } }, { min: 0, max: 1, usage: VIEW_USAGE });
  if (values.help) {
    context.io.stdout(`usage: ${VIEW_USAGE}\n`);
    return 0;
  }
  throw new YokeError("DEPENDENCY_MISSING", "the run viewer is not in this build yet");
}
