import { grantRole, revokeRole, type Role } from '../domain/roles';
import { CliError } from './cli-error';
import { cliActor, type Command, type CliValues } from './command';
import { userFromArgs } from './user-arg';

const options = { email: { type: 'string' }, admin: { type: 'boolean' }, 'dev-access': { type: 'boolean' } } as const;

function roleFrom(values: CliValues): Role {
  if (values.admin && !values['dev-access']) return 'admin';
  if (values['dev-access'] && !values.admin) return 'dev-access';
  throw new CliError('Give exactly one of --admin or --dev-access');
}

export const usersGrant: Command = {
  usage: '--email E --admin | --dev-access',
  summary: 'Make a user an admin, or give them access to development hosts.',
  options,
  async run({ db }, values, print) {
    const role = roleFrom(values);
    const user = await userFromArgs(db, values);
    await grantRole(db, user.id, role, cliActor());
    print(`${user.email} now has ${role}.`);
  },
};

export const usersRevoke: Command = {
  usage: '--email E --admin | --dev-access',
  summary: 'Take a role back.',
  options,
  async run({ db }, values, print) {
    const role = roleFrom(values);
    const user = await userFromArgs(db, values);
    print((await revokeRole(db, user.id, role, cliActor())) ? `${user.email} no longer has ${role}.` : `${user.email} did not have ${role}.`);
  },
};
