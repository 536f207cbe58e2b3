import { mailRecoveryLink, recoveryJob } from '../../auth/recovery';
import { defineTask } from '../task';

/** Mails a recovery link when the address requested has an account (auth/recovery.ts). */
export const sendRecovery = defineTask({
  name: 'send-recovery',
  lane: 'upkeep',
  payload: recoveryJob,
  run: (job, deps) => mailRecoveryLink(deps, job),
});
