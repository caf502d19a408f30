import type { JsonValue } from "@yoke/protocol";
import { SimulatedToolError, type SecurityEnvironment, type ToolImplementation } from "./tool-support.js";

interface Message {
  sender: string;
  recipient: string;
  body: string;
}

interface Slack {
  users: string[];
  channels: string[];
  user_channels: Record<string, string[]>;
  user_inbox: Record<string, Message[]>;
  channel_inbox: Record<string, Message[]>;
}

interface Web {
  web_content: Record<string, string>;
  web_requests: string[];
}

const slack = (env: SecurityEnvironment) => env.state.slack as unknown as Slack;
const web = (env: SecurityEnvironment) => env.state.web as unknown as Web;

/** Upstream's URL normalisation: one leading `https://`, then one leading `http://`, removed. */
function standardize(url: string): string {
  let out = url;
  if (out.startsWith("https://")) out = out.slice("https://".length);
  if (out.startsWith("http://")) out = out.slice("http://".length);
  return out;
}

/** The slack suite's tools, after upstream's slack and web tools. */
export const slackImplementations: Record<string, ToolImplementation> = {
  get_channels: {
    run: (env) => [...slack(env).channels],
    structured: (result) => ({ channels: result }),
  },
  add_user_to_channel: {
    run: (env, input) => {
      const workspace = slack(env);
      const user = input.user as string;
      const channel = input.channel as string;
      if (!workspace.users.includes(user)) throw new SimulatedToolError("ValueError", `User ${user} not found in the users list`);
      if (!workspace.channels.includes(channel)) throw new SimulatedToolError("ValueError", `Channel ${channel} not found in the channels list`);
      const memberships = workspace.user_channels[user];
      if (memberships === undefined) throw new SimulatedToolError("KeyError", `'${user}'`);
      memberships.push(channel);
      return null;
    },
  },
  read_channel_messages: {
    run: (env, input) => {
      const workspace = slack(env);
      const channel = input.channel as string;
      if (!workspace.channels.includes(channel)) throw new SimulatedToolError("ValueError", "Channel does not exist!");
      return structuredClone(workspace.channel_inbox[channel] ?? []) as unknown as JsonValue;
    },
    structured: (result) => ({ messages: result }),
  },
  read_inbox: {
    run: (env, input) => {
      const workspace = slack(env);
      const user = input.user as string;
      if (!workspace.users.includes(user)) throw new SimulatedToolError("ValueError", `User ${user} not found in the users list`);
      return structuredClone(workspace.user_inbox[user] ?? []) as unknown as JsonValue;
    },
    structured: (result) => ({ messages: result }),
  },
  send_direct_message: {
    run: (env, input) => {
      const workspace = slack(env);
      const recipient = input.recipient as string;
      if (!workspace.users.includes(recipient)) throw new SimulatedToolError("ValueError", `Recipient ${recipient} not found in the users list`);
      workspace.user_inbox[recipient] ??= [];
      workspace.user_inbox[recipient].push({ sender: "bot", recipient, body: input.body as string });
      return null;
    },
  },
  send_channel_message: {
    run: (env, input) => {
      const workspace = slack(env);
      const channel = input.channel as string;
      if (!workspace.channels.includes(channel)) throw new SimulatedToolError("ValueError", `Channel ${channel} not found in the channels list`);
      workspace.channel_inbox[channel] ??= [];
      workspace.channel_inbox[channel].push({ sender: "bot", recipient: channel, body: input.body as string });
      return null;
    },
  },
  get_users_in_channel: {
    run: (env, input) => {
      const workspace = slack(env);
      const channel = input.channel as string;
      if (!workspace.channels.includes(channel)) throw new SimulatedToolError("ValueError", `Channel ${channel} not found in the channels list`);
      return Object.entries(workspace.user_channels)
        .filter(([, channels]) => channels.includes(channel))
        .map(([name]) => name);
    },
    structured: (result) => ({ users: result }),
  },
  invite_user_to_slack: {
    run: (env, input) => {
      const workspace = slack(env);
      const user = input.user as string;
      if (workspace.users.includes(user)) throw new SimulatedToolError("ValueError", `User ${user} already in the users list`);
      workspace.users.push(user);
      workspace.user_inbox[user] = [];
      workspace.user_channels[user] = [];
      return null;
    },
  },
  remove_user_from_slack: {
    run: (env, input) => {
      const workspace = slack(env);
      const user = input.user as string;
      const at = workspace.users.indexOf(user);
      if (at < 0) throw new SimulatedToolError("ValueError", `User ${user} not found in the users list`);
      workspace.users.splice(at, 1);
      // Upstream deletes the inbox, then the memberships; a missing key raises after the
      // removal from `users`, and that partial change stays.
      if (!Object.hasOwn(workspace.user_inbox, user)) throw new SimulatedToolError("KeyError", `'${user}'`);
      delete workspace.user_inbox[user];
      if (!Object.hasOwn(workspace.user_channels, user)) throw new SimulatedToolError("KeyError", `'${user}'`);
      delete workspace.user_channels[user];
      return null;
    },
  },
  get_webpage: {
    run: (env, input) => {
      const url = standardize(input.url as string);
      const site = web(env);
      site.web_requests.push(url);
      return site.web_content[url] ?? "404 Not Found";
    },
    render: (result) => result as string,
  },
  post_webpage: {
    run: (env, input) => {
      const url = standardize(input.url as string);
      const site = web(env);
      site.web_requests.push(url);
      site.web_content[url] = input.content as string;
      return null;
    },
  },
};
