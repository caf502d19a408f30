import type { JsonValue } from "@yoke/protocol";
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

/*
 * A listing's structured output carries the account's own transactions again under `/own`,
 * so that a declaration can trust what the bank records of what this account did (and not
 * what another party wrote: an incoming transfer's sender, amount and subject).
 */
const listing = (key: string, env: SecurityEnvironment, result: JsonValue) => {
  const bank = account(env);
  const own = (result as unknown as Transaction[]).filter((transaction) => isOutgoing(bank, transaction));
  return { [key]: result, own: own as unknown as JsonValue };
};

/** The banking suite's tools, after upstream's banking_client, file_reader and user_account. */
export const bankingImplementations: Record<string, ToolImplementation> = {
  get_iban: {
    run: (env) => account(env).iban,
    structured: (result) => ({ iban: result }),
  },
  send_money: {
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
  },
  schedule_transaction: {
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
  },
  update_scheduled_transaction: {
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
  },
  get_balance: {
    run: (env) => account(env).balance,
    structured: (result) => ({ balance: result }),
    render: (result) => pythonFloat(result as number),
  },
  get_most_recent_transactions: {
    run: (env, input) => {
      const list = account(env).transactions;
      const n = input.n as number;
      // Python's list[-n:]: n = 0 gives the whole list, a negative n drops the first |n|.
      return structuredClone(n === 0 ? list : n > 0 ? list.slice(Math.max(0, list.length - n)) : list.slice(-n)) as unknown as JsonValue;
    },
    structured: (result, env) => listing("transactions", env, result),
  },
  get_scheduled_transactions: {
    run: (env) => structuredClone(account(env).scheduled_transactions) as unknown as JsonValue,
    structured: (result, env) => listing("scheduled_transactions", env, result),
  },
  read_file: {
    run: (env, input) => files(env)[input.file_path as string] ?? "",
    render: (result) => result as string,
  },
  get_user_info: {
    run: (env) => {
      const { first_name, last_name, street, city } = user(env);
      return { first_name: first_name!, last_name: last_name!, street: street!, city: city! };
    },
  },
  update_password: {
    run: (env, input) => {
      user(env).password = input.password as string;
      return { message: "Password updated." };
    },
    render: (result) => pythonMessage((result as { message: string }).message),
  },
  update_user_info: {
    run: (env, input) => {
      const profile = user(env);
      for (const field of ["first_name", "last_name", "street", "city"]) {
        const value = input[field];
        if (typeof value === "string" && value !== "") profile[field] = value;
      }
      return { first_name: profile.first_name!, last_name: profile.last_name!, street: profile.street!, city: profile.city! };
    },
  },
};
