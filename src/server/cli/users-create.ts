import { createUser } from '../auth/users';
import { addCredits } from '../domain/credits';
import { grantAdmin } from '../domain/roles';
import { CliError } from './cli-error';
import { cliActor, required, type Command } from './command';
import { amountArg } from './user-arg';

export const usersCreate: Command = {
  usage: '--email E --password P [--name N] [--admin] [--credits AMOUNT]',
  summary: 'Create a confirmed user (registration is disabled), optionally an admin, optionally with credit.',
  options: {
    email: { type: 'string' },
    password: { type: 'string' },
    name: { type: 'string' },
    admin: { type: 'boolean' },
    credits: { type: 'string' },
  },
  async run({ db }, values, print) {
    const email = required(values, 'email');
    const password = required(values, 'password');
    const credits = typeof values.credits === 'string' ? amountArg(values.credits, 'credits') : undefined;
    const user = await db
      .transaction(async (tx) => {
        const u = await createUser(tx, { email, password, fullName: typeof values.name === 'string' ? values.name : undefined });
        await tx.query(`select private.record_admin_action('user.create', 'user', $1, $2, null, $3, $4)`, [
          u.id,
          u.email,
          { admin: values.admin === true },
          cliActor(),
        ]);
        if (values.admin) await grantAdmin(tx, u.id, cliActor());
        return u;
      })
      .catch((e: unknown) => {
        throw new CliError(e instanceof Error ? e.message : String(e));
      });
    print(`Created ${user.email}${values.admin ? ' (admin)' : ''}`);
    if (credits !== undefined) print(`Balance: $${await addCredits(db, user.id, credits, 'Initial credit', cliActor())}`);
  },
};
