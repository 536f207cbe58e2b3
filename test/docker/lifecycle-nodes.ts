import { afterAll, afterEach } from 'vitest';
import type { Database } from '../../src/server/db/database';
import type { TestServer } from '../helpers/server';
import { forceServiceState } from '../helpers/service-state';
import { removeOurs } from './cli';

/**
 * For a test file whose app server runs nodes on Swarm: after each test, the nodes of the services
 * in `created` go, and those services are put where nothing should run (failed), so that a later
 * test's reconciler does not bring them back; after the file, the server stops.
 */
export function removeEachTestsNodes(server: () => TestServer | undefined, created: string[]): void {
  afterEach(async () => {
    const s = server();
    if (s) await forceServiceState(s.deps.db, 'failed', 'id = any($1::uuid[])', created);
    removeOurs(created);
  });
  afterAll(async () => {
    await server()?.stop();
    removeOurs(created);
  });
}

/** A service's state, as its row has it. */
export async function serviceState(db: Database, id: string): Promise<string> {
  const { rows } = await db.query<{ state: string }>('select state::text as state from private.services where id = $1', [id]);
  return rows[0]!.state;
}

/**
 * Puts Town Star on Swarm, with the image NODE_IMAGES gives it: its product runs on machines of
 * its own (issue 35), and these tests use it as any container product, to drive Swarm.
 */
export async function townStarOnSwarm(db: Database): Promise<void> {
  await db.query(`update public.products set node_driver = 'swarm' where base_product_code = 'TOWNSTAR'`);
}
