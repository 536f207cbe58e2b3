import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/server/auth/users';
import { bootstrap } from '../../src/server/bootstrap';
import type { AppDeps } from '../../src/server/deps';
import { addCredits } from '../../src/server/domain/credits';
import { withClaims } from '../../src/server/db/with-claims';
import { loadConfig } from '../../src/server/env';
import { NODE_EVENTS } from '../../src/shared/node-health';
import { waitFor } from '../lifecycle/helpers';
import { createPostgresDatabase } from '../helpers/database';
import { spawnWorkerProcess } from '../helpers/process';
import { GALA_KEY, TOWN_STAR } from '../helpers/users';
import { docker, removeOurs } from './cli';
import { townStarOnSwarm } from './lifecycle-nodes';
import { ensureNodeImage, NODE_IMAGE } from './node-image';

// `npm run worker` processes on one PostgreSQL, one of them killed while it waits for its node.
describe('a worker SIGKILLed in the middle of an install on Docker Swarm', () => {
  let scratch: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let env: Record<string, string>;
  const settings = {
    JWT_SECRET: 'docker-kill-secret-that-is-long-enough-0123456789',
    ENCRYPTION_KEY: 'docker-kill-encryption-key-long-enough-0123456789',
    PROVISIONER: 'docker',
    NODE_IMAGES: JSON.stringify({ TOWNSTAR: NODE_IMAGE }),
    // Long enough to kill the first worker while it waits for the node to settle.
    INSTALL_SETTLE_SECONDS: '5',
    JOB_LEASE_SECONDS: '2',
    WORKER_POLL_MS: '100',
    RECONCILE_INTERVAL_SECONDS: '86400',
    LOG_LEVEL: 'info',
  };
  let deps: AppDeps;
  let serviceId = '';
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    ensureNodeImage();
    scratch = await createPostgresDatabase('nh_dkill');
    env = { ...settings, DATABASE_URL: scratch.url };
    deps = await bootstrap(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    await townStarOnSwarm(deps.db);
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    removeOurs([serviceId]);
    await deps?.db.close();
    await scratch?.drop();
  });

  const q = <T>(sql: string, params: unknown[] = []) => deps.db.query<T>(sql, params).then((r) => r.rows);
  const spawnWorker = async () => {
    const w = await spawnWorkerProcess(env);
    children.push(w.child);
    return w;
  };
  const ours = (kind: 'service' | 'secret') => docker(kind, 'ls', '-q', '--filter', `label=nodeharbor.service_id=${serviceId}`).split('\n').filter(Boolean);

  it('ends with exactly one Swarm service and one secret, and the service active', async () => {
    const user = await createUser(deps.db, { email: 'docker-killed@nodeharbor.test', password: 'correct-horse-battery' });
    await addCredits(deps.db, user.id, 10, 'Test credit');
    const created = await withClaims(deps.db, { role: 'authenticated', claims: { sub: user.id } }, (tx) =>
      tx.query<{ s: { id: string } }>('select public.create_service_securely($1, null, $2, $3) as s', ['killed-node', GALA_KEY, TOWN_STAR]),
    );
    serviceId = created.rows[0]!.s.id;

    const first = await spawnWorker();
    await waitFor('the Swarm service to be created', async () => ours('service').length === 1, 60_000);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await q('select state::text as state from private.services where id = $1', [serviceId])).toEqual([{ state: 'installing' }]);

    await spawnWorker();
    await waitFor(
      'the service to be active',
      async () => (await q<{ state: string }>('select state::text as state from private.services where id = $1', [serviceId]))[0]!.state === 'active',
      90_000,
    );
    expect(ours('service')).toHaveLength(1);
    expect(ours('secret')).toHaveLength(1);
    expect(await q(`select status, attempts from nodeharbor.jobs where task = 'install-service'`)).toEqual([{ status: 'done', attempts: 2 }]);
    // The worker's monitor may already have seen the node online; the install's own events are what must not repeat.
    const events = await q<{ event: string }>('select event from public.service_events where service_id = $1 order by id', [serviceId]);
    expect(events.map((e) => e.event).filter((e) => !(NODE_EVENTS as readonly string[]).includes(e))).toEqual(['install_requested', 'installed']);
  });
});
