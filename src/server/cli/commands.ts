import type { Command } from './command';
import { mailList } from './mail-list';
import { usersList } from './users-list';

/** Every command of `npm run cli`, by name. */
export const commands: Record<string, Command> = {
  'users:list': usersList,
  'mail:list': mailList,
};
