import type { JsonValue, ToolPolicyFacts } from "@yoke/protocol";
import type { SecurityEnvironment } from "./tool-support.js";
import { drive, inbox, normalizeEmail, type DriveFile, type Email } from "./workspace-support.js";

/*
 * Policy facts and system-of-record fields of the workspace tools.
 *
 * What the mail, calendar and drive systems themselves assign is trusted: ids, sizes,
 * modification times, the current day. What another party writes is not: a received
 * e-mail's sender, recipients, subject and body (anyone can write to the account and choose
 * all of them), an event's title, description, times and participants (an inviter picks
 * them), a file's name, content and owner when someone else owns it. The contact list is
 * built from every address that appears in the mailbox, senders included, so a contact is
 * not a known party either: only the addresses the account itself has written to are
 * (its own sent mail), as a bank's known payees are the ones it has paid.
 */

/** The account's own e-mails: those it sent or drafted (its record of what it wrote and to whom). */
const isOwnEmail = (env: SecurityEnvironment, email: Email) => email.sender === inbox(env).account_email && email.status !== "received";

/** Addresses the account has itself written to (recipients, cc and bcc of its own e-mails), lower-cased. */
export function knownAddresses(env: SecurityEnvironment): Set<string> {
  const known = new Set<string>();
  for (const email of inbox(env).initial_emails) {
    if (!isOwnEmail(env, email)) continue;
    for (const address of [...email.recipients, ...email.cc, ...email.bcc]) known.add(address.toLowerCase());
  }
  return known;
}

/** E-mail results with the account's own e-mails again under `own`, the only ones whose addresses are trusted. */
export function emailListing(result: JsonValue, env: SecurityEnvironment): JsonValue {
  const emails = (Array.isArray(result) ? result : [result]) as unknown as Email[];
  return { emails: emails as unknown as JsonValue, own: emails.filter((email) => isOwnEmail(env, email)) as unknown as JsonValue };
}

export const EMAIL_TRUSTED_FIELDS = ["/emails/*/id_", "/own/*/sender", "/own/*/recipients", "/own/*/cc", "/own/*/bcc", "/own/*/timestamp"];

/** Contacts with the ones the account has written to again under `known`. */
export function contactListing(result: JsonValue, env: SecurityEnvironment): JsonValue {
  const known = knownAddresses(env);
  const contacts = result as unknown as { email: string; name: string }[];
  return { contacts: result, known: contacts.filter((contact) => known.has(contact.email.toLowerCase())) as unknown as JsonValue };
}

export const CONTACT_TRUSTED_FIELDS = ["/known/*/email", "/known/*/name"];

export const eventListing = (result: JsonValue): JsonValue => ({ events: Array.isArray(result) ? result : [result] });

export const EVENT_TRUSTED_FIELDS = ["/events/*/id_"];

/** File results with the account's own files again under `own`, whose names and owner are the account's record. */
export function fileListing(result: JsonValue, env: SecurityEnvironment): JsonValue {
  const files = (Array.isArray(result) ? result : [result]) as unknown as DriveFile[];
  const account = drive(env).account_email;
  return { files: files as unknown as JsonValue, own: files.filter((file) => file.owner === account) as unknown as JsonValue };
}

export const FILE_TRUSTED_FIELDS = ["/files/*/id_", "/files/*/size", "/files/*/last_modified", "/own/*/filename", "/own/*/owner"];

export const read = (resource: string): ToolPolicyFacts => ({ verb: "read", resource });

const addressesIn = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);

/** An address as the tool will store it, or as given when it is not valid (the tool then refuses the call). */
function canonical(address: string): string {
  try {
    return normalizeEmail(address, "address");
  } catch {
    return address.trim();
  }
}

/**
 * Facts of a call that writes to the addresses `addresses`: the single destination when
 * there is one (a glob over a joined list could match an outsider hidden among insiders, so
 * several addresses are one opaque destination), and whether every one is an address the
 * account has already written to.
 */
export function mailFacts(env: SecurityEnvironment, verb: string, resource: string, addresses: readonly string[]): ToolPolicyFacts {
  const distinct = [...new Set(addresses.map(canonical))];
  const known = knownAddresses(env);
  const allKnown = distinct.every((address) => known.has(address.toLowerCase()));
  return {
    verb,
    resource,
    ...(distinct.length === 0 ? {} : { destination: distinct.length === 1 ? `email:${distinct[0]!}` : "email:(several recipients)" }),
    expectedEffect: allKnown ? "email:known-recipients" : "email:new-recipient",
  };
}

export const recipientsOf = (input: Record<string, unknown>, fields: readonly string[]): string[] => fields.flatMap((field) => addressesIn(input[field]));
