import { describeData } from '../backup/backup-format';
import { whereSecretsAre } from '../backup/secrets-location';
import { backupSource } from '../backup/snapshot';
import { takeBackup } from '../backup/take-backup';
import { required, type Command } from './command';

export const backup: Command = {
  usage: '--out FILE',
  summary: 'Write a consistent backup of the whole database to FILE (gzip, mode 0600), while the server runs or not.',
  options: { out: { type: 'string' } },
  files: ['out'],
  async run(deps, values, print) {
    const { file, summary } = await takeBackup(backupSource(deps), required(values, 'out'));
    print(`Backed up ${describeData(summary)} to ${file}.`);
    print(
      `It holds password hashes and encrypted keys but no secret: a restore needs this ENCRYPTION_KEY to read the stored API keys and TOTP secrets, and this JWT_SECRET to keep sessions (${whereSecretsAre(deps.config)}). Keep a copy of them apart from the backups.`,
    );
  },
};
