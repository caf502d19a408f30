import type { ToolImplementation } from "./tool-support.js";
import { calendarImplementations } from "./workspace-calendar.js";
import { driveImplementations } from "./workspace-drive.js";
import { emailImplementations } from "./workspace-email.js";
import { logicalNow, type WorkspaceClock } from "./workspace-support.js";

export { withWorkspaceDerivedFields, type WorkspaceClock } from "./workspace-support.js";

/**
 * The workspace suite's 24 tools (e-mail, calendar, cloud drive), after upstream's clients:
 * effects, return values and error texts as the data set's `workspace/tools.json` documents
 * them. `now` gives the timestamp of new e-mails and changed files; by default one second
 * after the latest timestamp in the environment, so runs are deterministic.
 *
 * @example
 * ```ts
 * const implementations = createWorkspaceImplementations({ now: () => "2024-05-15T12:00:00" });
 * implementations.send_email!.run(env, { recipients: ["a@b.com"], subject: "Hi", body: "…", attachments: null, cc: null, bcc: null });
 * ```
 */
export function createWorkspaceImplementations(options: { readonly now?: WorkspaceClock } = {}): Record<string, ToolImplementation> {
  const now = options.now ?? logicalNow;
  return { ...emailImplementations(now), ...calendarImplementations(now), ...driveImplementations(now) };
}

/** The workspace suite's tools with the default (environment-derived) clock. */
export const workspaceImplementations: Record<string, ToolImplementation> = createWorkspaceImplementations();
