import { describeData } from '../backup/backup-format';
import { restoreBackup } from '../backup/restore-backup';
import { CliError } from './cli-error';
import { required, type Command } from './command';

export const restore: Command = {
  usage: '--from FILE [--force]',
  summary: 'Replace the whole database with a backup, in one transaction; --force when it already holds data.',
  options: { from: { type: 'string' }, force: { type: 'boolean' } },
  files: ['from'],
  async run({ db, encryptionKeys, keys }, values, print) {
    const file = required(values, 'from');
    const { manifest, summary, sameJwtSecret } = await restoreBackup({ db, encryptionKeys, jwtSecret: keys.jwtSecret }, file, {
      force: values.force === true,
      where: 'This database',
    }).catch((e: unknown) => {
      // Checked before anything changed, or inside the transaction, which rolled back.
      throw e instanceof CliError ? new CliError(`${e.message}\nNothing was changed.`) : e;
    });
    print(`Restored ${describeData(summary)} from ${file}, taken ${manifest.takenAt}.`);
    print(
      sameJwtSecret
        ? 'Sessions stay valid: JWT_SECRET is the one the backup was taken with.'
        : 'JWT_SECRET is not the one the backup was taken with: everyone signed in before must sign in again.',
    );
  },
};
