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

/*
 * System-of-record fields: the channel directory and channel membership, which the workspace
 * keeps. A message is written by its sender, all of it: the body, where it was posted and
 * who wrote it (an outside account in a shared channel picks its own name). So no field of a
 * message is trusted: a stranger's author name must not become a known contact. Web pages are
 * never trusted either.
 */

/** The slack suite's tools, after upstream's slack and web tools. */
export const slackImplementations: Record<string, ToolImplementation> = {
  get_channels: {
    sideEffect: "none",
    run: (env) => [...slack(env).channels],
    structured: (result) => ({ channels: result }),
    policy: () => ({ verb: "read", resource: "slack:channels" }),
    // The channel directory is the workspace's own record: a channel named exactly so exists.
    // Provenance trusts a whole field only, so text inside a name (an attacker's URL) stays untrusted.
    trustedOutputFields: ["/channels/*"],
  },
  add_user_to_channel: {
    sideEffect: "reversible",
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
    policy: (_env, input) => ({
      verb: "add_member",
      resource: `slack:channel:${input.channel as string}`,
      destination: `channel:${input.channel as string}`,
      destinations: [
        { pointer: "/channel", role: "channel" },
        { pointer: "/user", role: "user" },
      ],
    }),
  },
  read_channel_messages: {
    sideEffect: "none",
    run: (env, input) => {
      const workspace = slack(env);
      const channel = input.channel as string;
      if (!workspace.channels.includes(channel)) throw new SimulatedToolError("ValueError", "Channel does not exist!");
      return structuredClone(workspace.channel_inbox[channel] ?? []) as unknown as JsonValue;
    },
    structured: (result) => ({ messages: result }),
    policy: (_env, input) => ({ verb: "read", resource: `slack:channel:${input.channel as string}` }),
  },
  read_inbox: {
    sideEffect: "none",
    run: (env, input) => {
      const workspace = slack(env);
      const user = input.user as string;
      if (!workspace.users.includes(user)) throw new SimulatedToolError("ValueError", `User ${user} not found in the users list`);
      return structuredClone(workspace.user_inbox[user] ?? []) as unknown as JsonValue;
    },
    structured: (result) => ({ messages: result }),
    policy: (_env, input) => ({ verb: "read", resource: `slack:inbox:${input.user as string}` }),
  },
  send_direct_message: {
    sideEffect: "irreversible",
    run: (env, input) => {
      const workspace = slack(env);
      const recipient = input.recipient as string;
      if (!workspace.users.includes(recipient)) throw new SimulatedToolError("ValueError", `Recipient ${recipient} not found in the users list`);
      workspace.user_inbox[recipient] ??= [];
      workspace.user_inbox[recipient].push({ sender: "bot", recipient, body: input.body as string });
      return null;
    },
    policy: (_env, input) => ({
      verb: "send_message",
      resource: `slack:inbox:${input.recipient as string}`,
      destination: `user:${input.recipient as string}`,
      destinations: [{ pointer: "/recipient", role: "user" }],
    }),
  },
  send_channel_message: {
    sideEffect: "irreversible",
    run: (env, input) => {
      const workspace = slack(env);
      const channel = input.channel as string;
      if (!workspace.channels.includes(channel)) throw new SimulatedToolError("ValueError", `Channel ${channel} not found in the channels list`);
      workspace.channel_inbox[channel] ??= [];
      workspace.channel_inbox[channel].push({ sender: "bot", recipient: channel, body: input.body as string });
      return null;
    },
    policy: (_env, input) => ({
      verb: "send_message",
      resource: `slack:channel:${input.channel as string}`,
      destination: `channel:${input.channel as string}`,
      destinations: [{ pointer: "/channel", role: "channel" }],
    }),
  },
  get_users_in_channel: {
    sideEffect: "none",
    run: (env, input) => {
      const workspace = slack(env);
      const channel = input.channel as string;
      if (!workspace.channels.includes(channel)) throw new SimulatedToolError("ValueError", `Channel ${channel} not found in the channels list`);
      return Object.entries(workspace.user_channels)
        .filter(([, channels]) => channels.includes(channel))
        .map(([name]) => name);
    },
    structured: (result) => ({ users: result }),
    policy: (_env, input) => ({ verb: "read", resource: `slack:channel:${input.channel as string}` }),
    trustedOutputFields: ["/users/*"],
  },
  invite_user_to_slack: {
    sideEffect: "irreversible",
    run: (env, input) => {
      const workspace = slack(env);
      const user = input.user as string;
      if (workspace.users.includes(user)) throw new SimulatedToolError("ValueError", `User ${user} already in the users list`);
      workspace.users.push(user);
      workspace.user_inbox[user] = [];
      workspace.user_channels[user] = [];
      return null;
    },
    policy: (_env, input) => ({
      verb: "invite",
      resource: "slack:users",
      destination: `email:${input.user_email as string}`,
      destinations: [
        { pointer: "/user", role: "user" },
        { pointer: "/user_email", role: "email" },
      ],
    }),
  },
  remove_user_from_slack: {
    sideEffect: "irreversible",
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
    policy: (_env, input) => ({
      verb: "remove_member",
      resource: `slack:user:${input.user as string}`,
      destination: `user:${input.user as string}`,
      destinations: [{ pointer: "/user", role: "user" }],
    }),
  },
  get_webpage: {
    // Fetching a URL tells its server the URL (and anything in it) and is logged: an egress, not a read.
    sideEffect: "idempotent",
    run: (env, input) => {
      const url = standardize(input.url as string);
      const site = web(env);
      site.web_requests.push(url);
      return site.web_content[url] ?? "404 Not Found";
    },
    render: (result) => result as string,
    policy: (_env, input) => ({
      verb: "fetch",
      resource: `web:${standardize(input.url as string)}`,
      destination: `url:${standardize(input.url as string)}`,
      destinations: [{ pointer: "/url", role: "url" }],
    }),
  },
  post_webpage: {
    sideEffect: "irreversible",
    run: (env, input) => {
      const url = standardize(input.url as string);
      const site = web(env);
      site.web_requests.push(url);
      site.web_content[url] = input.content as string;
      return null;
    },
    policy: (_env, input) => ({
      verb: "publish",
      resource: `web:${standardize(input.url as string)}`,
      destination: `url:${standardize(input.url as string)}`,
      destinations: [{ pointer: "/url", role: "url" }],
    }),
  },
};
