import type { JsonValue } from "@yoke/protocol";
import type { SecurityEnvironment } from "./tool-support.js";
import { drive, inbox, type DriveFile, type Email } from "./workspace-support.js";

/*
 * The structured views of the workspace tools' results: each listing repeats, under `own`
 * or `known`, the records that are the account's own, so a declarations file can name them
 * as trusted output fields (tests/security/policies/workspace.tools.json does).
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

/** Contacts with the ones the account has written to again under `known`. */
export function contactListing(result: JsonValue, env: SecurityEnvironment): JsonValue {
  const known = knownAddresses(env);
  const contacts = result as unknown as { email: string; name: string }[];
  return { contacts: result, known: contacts.filter((contact) => known.has(contact.email.toLowerCase())) as unknown as JsonValue };
}

export const eventListing = (result: JsonValue): JsonValue => ({ events: Array.isArray(result) ? result : [result] });

/** File results with the account's own files again under `own`, whose names and owner are the account's record. */
export function fileListing(result: JsonValue, env: SecurityEnvironment): JsonValue {
  const files = (Array.isArray(result) ? result : [result]) as unknown as DriveFile[];
  const account = drive(env).account_email;
  return { files: files as unknown as JsonValue, own: files.filter((file) => file.owner === account) as unknown as JsonValue };
}
