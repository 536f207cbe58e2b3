import { backup } from './backup';
import type { Command } from './command';
import { creditsAdd } from './credits-add';
import { keysReencrypt } from './keys-reencrypt';
import { mailList } from './mail-list';
import { migrateStatus } from './migrate-status';
import { migrateTo } from './migrate-to';
import { restore } from './restore';
import { usersCreate } from './users-create';
import { usersGrant, usersRevoke } from './users-grant';
import { usersList } from './users-list';

/** Every command of `npm run cli`, by name. */
export const commands: Record<string, Command> = {
  'users:create': usersCreate,
  'users:list': usersList,
  'users:grant': usersGrant,
  'users:revoke': usersRevoke,
  'credits:add': creditsAdd,
  'mail:list': mailList,
  'keys:reencrypt': keysReencrypt,
  backup,
  restore,
  'migrate:status': migrateStatus,
  'migrate-to': migrateTo,
};
