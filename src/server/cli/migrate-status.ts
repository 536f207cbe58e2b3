import { migrationFiles, migrationStatus, type MigrationState } from '../db/migrate';
import type { Command } from './command';

const LABEL: Record<MigrationState['state'], string> = { applied: 'applied', pending: 'pending', edited: 'EDITED', unknown: 'unknown' };

/** What is applied and what the next start applies; the database is read as it is, not migrated first. */
export const migrateStatus: Command = {
  usage: '',
  summary: 'Show each migration: applied (when), pending, or edited since it was applied.',
  options: {},
  asIs: true,
  async run({ db }, _values, print) {
    const states = await migrationStatus(db, migrationFiles({ platform: true }));
    for (const s of states) {
      const when = 'appliedAt' in s ? s.appliedAt.toISOString().slice(0, 16).replace('T', ' ') : '';
      print(`${LABEL[s.state].padEnd(8)} ${when.padEnd(16)} ${s.name}`);
    }
    const count = (state: MigrationState['state']) => states.filter((s) => s.state === state).length;
    print(`${count('applied')} applied, ${count('pending')} pending.`);
    if (count('edited')) print('An EDITED migration stops the start: put its file back as it was applied and write the change as a new migration.');
    if (count('unknown')) print('An unknown migration was applied by a newer version of NodeHarbor than this one.');
  },
};
