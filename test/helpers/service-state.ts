import type { Database } from '../../src/server/db/database';
import type { ServiceState } from '../../src/shared/constants';

/**
 * A fixture: puts services straight into a state, as if their life had led there, skipping the
 * check of transitions (triggers off for this transaction only). `where` selects the rows and may
 * use $1; `also` adds assignments, such as a renewal date in the past.
 */
export async function forceServiceState(db: Database, state: ServiceState, where: string, param: unknown, also = ''): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('set local session_replication_role = replica');
    await tx.query(`update private.services set state = '${state}'${also ? `, ${also}` : ''} where ${where}`, [param]);
  });
}
