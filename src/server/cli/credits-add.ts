import { addCredits } from '../domain/credits';
import { cliActor, required, type Command } from './command';
import { amountArg, userFromArgs } from './user-arg';

export const creditsAdd: Command = {
  usage: '--email E --amount A [--note T]',
  summary: "Add credit to a user's balance (recorded in the ledger as an admin credit).",
  options: { email: { type: 'string' }, amount: { type: 'string' }, note: { type: 'string' } },
  async run({ db }, values, print) {
    const amount = amountArg(required(values, 'amount'));
    const user = await userFromArgs(db, values);
    const note = typeof values.note === 'string' && values.note.trim() ? values.note.trim() : 'Credit added by an administrator';
    print(`Balance of ${user.email}: $${await addCredits(db, user.id, amount, note, cliActor())}`);
  },
};
