import type { Command } from './command';
import { mailList } from './mail-list';

/** Every command of `npm run cli`, by name. */
export const commands: Record<string, Command> = {
  'mail:list': mailList,
};
