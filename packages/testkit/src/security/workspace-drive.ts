import type { JsonValue } from "@yoke/protocol";
import { SimulatedToolError, type SecurityEnvironment, type ToolImplementation } from "./tool-support.js";
import { FILE_TRUSTED_FIELDS, fileListing, mailFacts, read } from "./workspace-policy.js";
import { codePointLength, drive, nextId, snapshot, type DriveFile, type WorkspaceClock } from "./workspace-support.js";

const files = (env: SecurityEnvironment) => drive(env).initial_files;
const resource = (env: SecurityEnvironment) => `drive:${drive(env).account_email}`;

function fileById(env: SecurityEnvironment, id: string): DriveFile {
  const file = files(env).find((candidate) => candidate.id_ === id);
  if (file === undefined) throw new SimulatedToolError("ValueError", `File with ID '${id}' not found.`);
  return file;
}

const fileOutput = { structured: fileListing, trustedOutputFields: FILE_TRUSTED_FIELDS };

const matching = (env: SecurityEnvironment, field: "filename" | "content", query: string) =>
  files(env).filter((file) => file[field].toLowerCase().includes(query.toLowerCase()));

const fileTarget = (env: SecurityEnvironment, verb: string, id: unknown) => ({
  verb,
  resource: `${resource(env)}:file:${String(id)}`,
  destinations: [{ pointer: "/file_id", role: "file" }],
});

/** The cloud-drive tools of the workspace suite, after upstream's cloud_drive_client; `now` stamps changed files. */
export function driveImplementations(now: WorkspaceClock): Record<string, ToolImplementation> {
  return {
    append_to_file: {
      // The file can be edited back; nothing leaves the account.
      sideEffect: "reversible",
      run: (env, input) => {
        const file = fileById(env, input.file_id as string);
        file.content += input.content as string;
        file.size = codePointLength(file.content);
        file.last_modified = now(env);
        return snapshot(file);
      },
      ...fileOutput,
      policy: (env, input) => fileTarget(env, "append", input.file_id),
    },
    search_files_by_filename: {
      sideEffect: "none",
      run: (env, input) => snapshot(matching(env, "filename", input.filename as string)),
      ...fileOutput,
      policy: (env) => read(`${resource(env)}:files`),
    },
    create_file: {
      sideEffect: "reversible",
      run: (env, input) => {
        const content = input.content as string;
        const file: DriveFile = {
          id_: nextId(files(env)),
          filename: input.filename as string,
          content,
          owner: drive(env).account_email,
          last_modified: now(env),
          shared_with: {},
          size: codePointLength(content),
        };
        files(env).push(file);
        return snapshot(file);
      },
      ...fileOutput,
      policy: (env) => ({ verb: "create", resource: `${resource(env)}:files` }),
    },
    delete_file: {
      // The drive has no trash: the content is gone.
      sideEffect: "irreversible",
      run: (env, input) => {
        const file = fileById(env, input.file_id as string);
        files(env).splice(files(env).indexOf(file), 1);
        return snapshot(file);
      },
      ...fileOutput,
      policy: (env, input) => fileTarget(env, "delete", input.file_id),
    },
    get_file_by_id: {
      sideEffect: "none",
      run: (env, input) => snapshot(fileById(env, input.file_id as string)),
      ...fileOutput,
      policy: (env, input) => read(`${resource(env)}:file:${String(input.file_id)}`),
    },
    list_files: {
      sideEffect: "none",
      run: (env) => snapshot(files(env)),
      ...fileOutput,
      policy: (env) => read(`${resource(env)}:files`),
    },
    share_file: {
      // Whoever it is shared with can read it from then on: a disclosure cannot be recalled.
      sideEffect: "irreversible",
      run: (env, input) => {
        const permission = input.permission as string;
        if (permission !== "r" && permission !== "rw") {
          throw new SimulatedToolError("ValidationError", "1 validation error(s): permission: Input should be 'r' or 'rw'");
        }
        const file = fileById(env, input.file_id as string);
        file.shared_with[input.email as string] = permission;
        return snapshot(file);
      },
      ...fileOutput,
      policy: (env, input) => {
        const facts = mailFacts(env, "share", `${resource(env)}:file:${String(input.file_id)}`, typeof input.email === "string" ? [input.email] : []);
        return {
          ...facts,
          expectedEffect: `${facts.expectedEffect!}:share-${String(input.permission)}`,
          destinations: [
            { pointer: "/email", role: "email" },
            { pointer: "/file_id", role: "file" },
          ],
        };
      },
    },
    search_files: {
      sideEffect: "none",
      run: (env, input) => {
        const query = input.query as string;
        const found = matching(env, "content", query);
        if (found.length === 0) throw new SimulatedToolError("ValueError", `No files found with the given query ('${query}'). Try a different search term.`);
        return snapshot(found) as JsonValue;
      },
      ...fileOutput,
      policy: (env) => read(`${resource(env)}:files`),
    },
  };
}
