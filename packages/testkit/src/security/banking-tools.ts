import type { JsonValue, ToolPolicyFacts } from "@yoke/protocol";
import { pythonFloat, pythonMessage } from "./render.js";
import { SimulatedToolError, type SecurityEnvironment, type ToolImplementation } from "./tool-support.js";

interface Transaction {
  id: number;
  sender: string;
  recipient: string;
  amount: number;
  subject: string;
  date: string;
  recurring: boolean;
}

interface BankAccount {
  balance: number;
  iban: string;
  transactions: Transaction[];
  scheduled_transactions: Transaction[];
}

const account = (env: SecurityEnvironment) => env.state.bank_account as unknown as BankAccount;
const user = (env: SecurityEnvironment) => env.state.user_account as unknown as Record<string, string>;
const files = (env: SecurityEnvironment) => (env.state.filesystem as { files: Record<string, string> }).files;

function nextId(bank: BankAccount): number {
  const ids = [...bank.transactions, ...bank.scheduled_transactions].map((transaction) => transaction.id);
  return ids.length === 0 ? 1 : Math.max(...ids) + 1;
}

/*
 * Whether a transaction is one this account made (its own history records "me" or the
 * account's IBAN as the sender). Anyone can send money to an IBAN, so an incoming transfer's
 * sender, amount and subject are all the other party's choice.
 */
const isOutgoing = (bank: BankAccount, transaction: Transaction) => transaction.sender === "me" || transaction.sender === bank.iban;

/**
 * Whether `recipient` is a payee this account has already paid (a recipient of one of its
 * own past or scheduled transactions). Having sent the account money does not make an IBAN
 * a known payee: that is one transfer of 0.01 away for an attacker.
 */
function isKnownPayee(bank: BankAccount, recipient: string): boolean {
  return [...bank.transactions, ...bank.scheduled_transactions].some((transaction) => isOutgoing(bank, transaction) && transaction.recipient === recipient);
}

/*
 * System-of-record fields: what the bank records of what this account did (its own
 * transactions' ids, recipients, amounts, dates and recurring flags; its IBAN, balance and
 * the profile it keeps). Nothing another party writes is: an incoming transfer's sender,
 * amount and subject, any transaction's subject, and files. A listing's structured output
 * therefore carries the account's own transactions again under `/own`, and only those are
 * declared trusted.
 */
const TRANSACTION_RECORD_FIELDS = ["id", "sender", "recipient", "amount", "date", "recurring"];
const recordFields = () => TRANSACTION_RECORD_FIELDS.map((field) => `/own/*/${field}`);
const listing = (key: string, env: SecurityEnvironment, result: JsonValue) => {
  const bank = account(env);
  const own = (result as unknown as Transaction[]).filter((transaction) => isOutgoing(bank, transaction));
  return { [key]: result, own: own as unknown as JsonValue };
};

const read = (resource: string): ToolPolicyFacts => ({ verb: "read", resource });

function payment(env: SecurityEnvironment, verb: string, recipient: string): ToolPolicyFacts {
  const known = isKnownPayee(account(env), recipient);
  return {
    verb,
    resource: `bank:account:${account(env).iban}`,
    destination: `iban:${recipient}`,
    expectedEffect: known ? "payment:known-payee" : "payment:new-payee",
    // The amount is a destination-like argument too: a payment to a payee the user named, of
    // an amount only a third party's text gave, is not the payment the user asked for.
    destinations: [
      { pointer: "/recipient", role: "recipient" },
      { pointer: "/amount", role: "amount" },
    ],
  };
}

/** The banking suite's tools, after upstream's banking_client, file_reader and user_account. */
export const bankingImplementations: Record<string, ToolImplementation> = {
  get_iban: {
    sideEffect: "none",
    run: (env) => account(env).iban,
    structured: (result) => ({ iban: result }),
    policy: () => read("bank:account"),
    trustedOutputFields: ["/iban"],
  },
  send_money: {
    sideEffect: "irreversible",
    run: (env, input) => {
      const bank = account(env);
      const transaction: Transaction = {
        id: nextId(bank),
        sender: bank.iban,
        recipient: input.recipient as string,
        amount: input.amount as number,
        subject: input.subject as string,
        date: input.date as string,
        recurring: false,
      };
      bank.transactions.push(transaction);
      return { message: `Transaction to ${transaction.recipient} for ${pythonFloat(transaction.amount)} sent.` };
    },
    render: (result) => pythonMessage((result as { message: string }).message),
    policy: (env, input) => payment(env, "transfer", input.recipient as string),
  },
  schedule_transaction: {
    sideEffect: "reversible",
    run: (env, input) => {
      const bank = account(env);
      const transaction: Transaction = {
        id: nextId(bank),
        sender: bank.iban,
        recipient: input.recipient as string,
        amount: input.amount as number,
        subject: input.subject as string,
        date: input.date as string,
        recurring: input.recurring as boolean,
      };
      bank.scheduled_transactions.push(transaction);
      return { message: `Transaction to ${transaction.recipient} for ${pythonFloat(transaction.amount)} scheduled.` };
    },
    render: (result) => pythonMessage((result as { message: string }).message),
    policy: (env, input) => payment(env, "schedule_transfer", input.recipient as string),
  },
  update_scheduled_transaction: {
    sideEffect: "idempotent",
    run: (env, input) => {
      const transaction = account(env).scheduled_transactions.find((candidate) => candidate.id === input.id);
      if (transaction === undefined) throw new SimulatedToolError("ValueError", `Transaction with ID ${String(input.id)} not found.`);
      // Upstream overwrites only fields given a truthy value.
      if (input.recipient) transaction.recipient = input.recipient as string;
      if (input.amount) transaction.amount = input.amount as number;
      if (input.subject) transaction.subject = input.subject as string;
      if (input.date) transaction.date = input.date as string;
      if (input.recurring) transaction.recurring = input.recurring as boolean;
      return { message: `Transaction with ID ${String(input.id)} updated.` };
    },
    render: (result) => pythonMessage((result as { message: string }).message),
    policy: (env, input) => {
      const resource = `bank:scheduled_transaction:${String(input.id)}`;
      if (typeof input.recipient !== "string" || input.recipient === "") {
        return { verb: "amend_transfer", resource, expectedEffect: "amend", destinations: [{ pointer: "/amount", role: "amount" }] };
      }
      // Pointing a standing order at another payee is a new payee for that order, whoever else
      // the account pays: it never counts as a payment to a known payee.
      const current = account(env).scheduled_transactions.find((transaction) => transaction.id === input.id);
      const facts = payment(env, "redirect_transfer", input.recipient);
      return { ...facts, resource, ...(current?.recipient === input.recipient ? {} : { expectedEffect: "payment:redirect" }) };
    },
  },
  get_balance: {
    sideEffect: "none",
    run: (env) => account(env).balance,
    structured: (result) => ({ balance: result }),
    render: (result) => pythonFloat(result as number),
    policy: () => read("bank:account"),
    trustedOutputFields: ["/balance"],
  },
  get_most_recent_transactions: {
    sideEffect: "none",
    run: (env, input) => {
      const list = account(env).transactions;
      const n = input.n as number;
      // Python's list[-n:]: n = 0 gives the whole list, a negative n drops the first |n|.
      return structuredClone(n === 0 ? list : n > 0 ? list.slice(Math.max(0, list.length - n)) : list.slice(-n)) as unknown as JsonValue;
    },
    structured: (result, env) => listing("transactions", env, result),
    policy: () => read("bank:transactions"),
    trustedOutputFields: recordFields(),
  },
  get_scheduled_transactions: {
    sideEffect: "none",
    run: (env) => structuredClone(account(env).scheduled_transactions) as unknown as JsonValue,
    structured: (result, env) => listing("scheduled_transactions", env, result),
    policy: () => read("bank:scheduled_transactions"),
    trustedOutputFields: recordFields(),
  },
  read_file: {
    sideEffect: "none",
    run: (env, input) => files(env)[input.file_path as string] ?? "",
    render: (result) => result as string,
    policy: (_env, input) => ({ verb: "read", resource: `file:${input.file_path as string}`, path: input.file_path as string }),
  },
  get_user_info: {
    sideEffect: "none",
    run: (env) => {
      const { first_name, last_name, street, city } = user(env);
      return { first_name: first_name!, last_name: last_name!, street: street!, city: city! };
    },
    policy: () => read("bank:user_account:profile"),
    trustedOutputFields: ["/first_name", "/last_name", "/street", "/city"],
  },
  update_password: {
    sideEffect: "idempotent",
    run: (env, input) => {
      user(env).password = input.password as string;
      return { message: "Password updated." };
    },
    render: (result) => pythonMessage((result as { message: string }).message),
    policy: () => ({ verb: "set_credential", resource: "bank:user_account:password", destinations: [{ pointer: "/password", role: "credential" }] }),
  },
  update_user_info: {
    sideEffect: "idempotent",
    run: (env, input) => {
      const profile = user(env);
      for (const field of ["first_name", "last_name", "street", "city"]) {
        const value = input[field];
        if (typeof value === "string" && value !== "") profile[field] = value;
      }
      return { first_name: profile.first_name!, last_name: profile.last_name!, street: profile.street!, city: profile.city! };
    },
    policy: () => ({ verb: "update", resource: "bank:user_account:profile" }),
  },
};
