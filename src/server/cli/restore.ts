import { dirname } from 'node:path';
import { describeData } from '../backup/backup-format';
import { restoreBackup } from '../backup/restore-backup';
import { CliError } from './cli-error';
import { cliActor, required, type Command } from './command';

export const restore: Command = {
  usage: '--from FILE [--force] [--trust-unsigned]',
  summary:
    'Replace the whole database with a backup, in one transaction, keeping a backup of what it replaces; --force when it already holds data, --trust-unsigned for a backup this installation did not sign.',
  options: { from: { type: 'string' }, force: { type: 'boolean' }, 'trust-unsigned': { type: 'boolean' } },
  files: ['from'],
  async run({ db, encryptionKeys, keys, config }, values, print) {
    const file = required(values, 'from');
    const { manifest, summary, sameJwtSecret, keptIn } = await restoreBackup({ db, encryptionKeys, jwtSecret: keys.jwtSecret }, file, {
      force: values.force === true,
      where: 'This database',
      trustUnsigned: values['trust-unsigned'] === true,
      print,
      // BACKUP_DIR, or else the folder the operator keeps this backup in.
      audit: { actor: cliActor(), dir: config.backups?.dir ?? dirname(file) },
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
    print(`The data it replaced, its audit log included, is kept in ${keptIn!}: restore that file to undo this.`);
  },
};
