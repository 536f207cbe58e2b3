import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describeData } from '../backup/backup-format';
import { restoreBackup } from '../backup/restore-backup';
import { secretSettings } from '../backup/secrets-location';
import { backupSource } from '../backup/snapshot';
import { takeBackup } from '../backup/take-backup';
import { migrate } from '../db/migrate';
import { openPostgres } from '../db/postgres';
import { withEncryptionKeys } from '../db/with-encryption-keys';
import { redactUrl } from '../redact-url';
import { CliError } from './cli-error';
import { required, type Command } from './command';

function postgresUrl(raw: string): string {
  try {
    if (['postgres:', 'postgresql:'].includes(new URL(raw).protocol)) return raw;
  } catch {
    // reported below
  }
  throw new CliError(`--database-url must be a postgres:// or postgresql:// URL, got "${redactUrl(raw)}"`);
}

/**
 * Copies this database into a PostgreSQL one: a backup of it (the same consistent snapshot as
 * `backup`), restored there by the same code as `restore`. The stored keys keep their encryption,
 * so the target is started with this process's ENCRYPTION_KEY; the command says where that is.
 */
export const migrateTo: Command = {
  usage: '--database-url URL [--force]',
  summary: 'Copy this database (the embedded one, say) into the PostgreSQL database at URL, and say what to set next.',
  options: { 'database-url': { type: 'string' }, force: { type: 'boolean' } },
  async run(deps, values, print) {
    const url = postgresUrl(required(values, 'database-url'));
    const shown = redactUrl(url);
    const folder = await mkdtemp(join(tmpdir(), 'nodeharbor-migrate-'));
    try {
      const { file } = await takeBackup(backupSource(deps), join(folder, 'copy.jsonl.gz'));
      const raw = await openPostgres(url, 2).catch((e: unknown) => {
        throw new CliError(`Could not connect to ${shown}: ${e instanceof Error ? e.message : String(e)}`);
      });
      // Its rows are written with this process's keys: the copy is read with them afterwards.
      const target = withEncryptionKeys(raw, { current: deps.encryptionKeys.current, previous: deps.encryptionKeys.previous });
      try {
        await migrate(target, { platform: true });
        const { summary } = await restoreBackup({ db: target, encryptionKeys: deps.encryptionKeys, jwtSecret: deps.keys.jwtSecret }, file, {
          force: values.force === true,
          where: `The database at ${shown}`,
        });
        print(`Copied ${describeData(summary)} into ${shown}.`);
      } finally {
        await target.close();
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    print('Next, stop NodeHarbor and start it again with these settings:');
    print(`  DATABASE_URL=${shown}`);
    for (const line of secretSettings(deps.config)) print(`  ${line}`);
    if (deps.encryptionKeys.previous !== undefined) print('  (and without ENCRYPTION_KEY_PREVIOUS: every stored key is now under ENCRYPTION_KEY)');
    print(
      deps.db.kind === 'pglite'
        ? `The embedded database in ${resolve(deps.config.dataDir)} stays as it was; what is written to it from now on is not copied.`
        : 'This database stays as it was; what is written to it from now on is not copied.',
    );
  },
};
