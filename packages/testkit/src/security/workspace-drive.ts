import type { JsonValue } from "@yoke/protocol";
import { SimulatedToolError, type SecurityEnvironment, type ToolImplementation } from "./tool-support.js";
import { fileListing } from "./workspace-listings.js";
import { codePointLength, drive, nextId, snapshot, type DriveFile, type WorkspaceClock } from "./workspace-support.js";

const files = (env: SecurityEnvironment) => drive(env).initial_files;

function fileById(env: SecurityEnvironment, id: string): DriveFile {
  const file = files(env).find((candidate) => candidate.id_ === id);
  if (file === undefined) throw new SimulatedToolError("ValueError", `File with ID '${id}' not found.`);
  return file;
}

const fileOutput = { structured: fileListing };

const matching = (env: SecurityEnvironment, field: "filename" | "content", query: string) =>
  files(env).filter((file) => file[field].toLowerCase().includes(query.toLowerCase()));

/** The cloud-drive tools of the workspace suite, after upstream's cloud_drive_client; `now` stamps changed files. */
export function driveImplementations(now: WorkspaceClock): Record<string, ToolImplementation> {
  return {
    append_to_file: {
      run: (env, input) => {
        const file = fileById(env, input.file_id as string);
        file.content += input.content as string;
        file.size = codePointLength(file.content);
        file.last_modified = now(env);
        return snapshot(file);
      },
      ...fileOutput,
    },
    search_files_by_filename: {
      run: (env, input) => snapshot(matching(env, "filename", input.filename as string)),
      ...fileOutput,
    },
    create_file: {
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
    },
    delete_file: {
      run: (env, input) => {
        const file = fileById(env, input.file_id as string);
        files(env).splice(files(env).indexOf(file), 1);
        return snapshot(file);
      },
      ...fileOutput,
    },
    get_file_by_id: {
      run: (env, input) => snapshot(fileById(env, input.file_id as string)),
      ...fileOutput,
    },
    list_files: {
      run: (env) => snapshot(files(env)),
      ...fileOutput,
    },
    share_file: {
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
    },
    search_files: {
      run: (env, input) => {
        const query = input.query as string;
        const found = matching(env, "content", query);
        if (found.length === 0) throw new SimulatedToolError("ValueError", `No files found with the given query ('${query}'). Try a different search term.`);
        return snapshot(found) as JsonValue;
      },
      ...fileOutput,
    },
  };
}
