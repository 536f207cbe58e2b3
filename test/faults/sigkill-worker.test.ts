import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/server/auth/users';
import { bootstrap } from '../../src/server/bootstrap';
import type { AppDeps } from '../../src/server/deps';
import { addCredits } from '../../src/server/domain/credits';
import { loadConfig } from '../../src/server/env';
import { withClaims } from '../../src/server/db/with-claims';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { claim, enqueue } from '../../src/server/jobs/queue';
import { renewService } from '../../src/server/jobs/tasks/renew-service';
import { createPostgresDatabase, postgresAnswers, TEST_DB } from '../helpers/database';
import { spawnWorkerProcess } from '../helpers/process';
import { GALA_KEY, TOWN_STAR } from '../helpers/users';
import { until } from '../helpers/wait';

// Several worker processes share one PostgreSQL (the PostgreSQL pass of npm run test:faults); the
// test reads the database while they run.

describe.runIf(TEST_DB === 'postgres' && (await postgresAnswers()))('npm run worker, killed with SIGKILL in the middle of a job', () => {
  let scratch: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let env: Record<string, string>;
  const settings = {
    JWT_SECRET: 'worker-kill-secret-that-is-long-enough-0123456789',
    ENCRYPTION_KEY: 'worker-kill-encryption-key-long-enough-0123456789',
    PROVISION_INSTALL_SECONDS: '3',
    INSTALL_SETTLE_SECONDS: '0',
    JOB_LEASE_SECONDS: '2',
    WORKER_POLL_MS: '100',
    LOG_LEVEL: 'info',
  };
  let deps: AppDeps;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    scratch = await createPostgresDatabase('nh_kill');
    env = { ...settings, DATABASE_URL: scratch.url };
    deps = await bootstrap(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await deps?.db.close();
    await scratch?.drop();
  });

  const spawnWorker = async () => {
    const w = await spawnWorkerProcess(env);
    children.push(w.child);
    return w;
  };
  const q = <T>(sql: string, params: unknown[] = []) => deps.db.query<T>(sql, params).then((r) => r.rows);

  it('finishes the install once after a restart, and a renewal whose worker died is charged once', async () => {
    const user = await createUser(deps.db, { email: 'killed@nodeharbor.test', password: 'correct-horse-battery' });
    await addCredits(deps.db, user.id, 25, 'Test credit');
    const created = await withClaims(deps.db, { role: 'authenticated', claims: { sub: user.id } }, (tx) =>
      tx.query<{ s: { id: string } }>('select public.create_service_securely($1, null, $2, $3) as s', ['kill-node', GALA_KEY, TOWN_STAR]),
    );
    const serviceId = created.rows[0]!.s.id;

    const first = await spawnWorker();
    type Lease = { status: string; locked_until: Date };
    const lease = async () => (await q<Lease>(`select status, locked_until from nodeharbor.jobs where task = 'install-service'`))[0];
    const claimed = await until('the install to be claimed', async () => {
      const l = await lease();
      return l?.status === 'running' && l;
    });
    // Inside the 3-second install: the worker's heartbeat (every JOB_LEASE_SECONDS / 3) has
    // extended the lease of the job it is still running.
    await until('the worker to extend the lease of the running install', async () => {
      const l = (await lease())!;
      return l.status === 'running' && l.locked_until.getTime() > claimed.locked_until.getTime();
    });
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await q('select state from private.services where id = $1', [serviceId])).toEqual([{ state: 'installing' }]);

    const second = await spawnWorker();
    // The service turns active and its install job ends in statements of their own, in either order.
    const ended = async () =>
      (await q<{ state: string }>('select state from private.services where id = $1', [serviceId]))[0]!.state === 'active' &&
      /^(done|failed)$/.test((await q<{ status: string }>(`select status from nodeharbor.jobs where task = 'install-service'`))[0]!.status);
    await until('the service to be active and its install job to end', ended);
    expect(await q(`select status, attempts from nodeharbor.jobs where task = 'install-service'`)).toEqual([{ status: 'done', attempts: 2 }]);
    expect(await q('select installs from nodeharbor.simulated_nodes where service_id = $1', [serviceId])).toEqual([{ installs: 1 }]);
    expect(await q(`select event from public.service_events where service_id = $1 order by id`, [serviceId])).toEqual([
      { event: 'install_requested' },
      { event: 'installed' },
    ]);
    second.child.kill('SIGKILL');
    await second.exited;

    // A worker renews the service, commits, and dies before marking its job done.
    await q(`update private.services set renews_at = now() - interval '1 minute' where id = $1`, [serviceId]);
    const period = (await q<{ renews_at: Date }>('select renews_at from private.services where id = $1', [serviceId]))[0]!.renews_at.toISOString();
    const payload = { serviceId, period };
    const jobId = (await enqueue(deps.db, renewService.name, payload, { key: `renew-service:${serviceId}:${period}` }))!;
    expect((await deps.db.transaction((tx) => claim(tx, 'the-killed-worker', 10, 2))).map((j) => j.id)).toEqual([jobId]);
    await renewService.run(payload, await createJobDeps(deps));

    const third = await spawnWorker();
    await until(
      'the renewal job to be taken over',
      async () => (await q<{ status: string }>('select status from nodeharbor.jobs where id = $1', [jobId]))[0]!.status === 'done',
    );
    expect(await q('select attempts from nodeharbor.jobs where id = $1', [jobId])).toEqual([{ attempts: 2 }]);
    expect(await q(`select amount from public.credit_transactions where service_id = $1 and description like 'Service renewal%'`, [serviceId])).toEqual([
      { amount: '-10.00' },
    ]);
    expect(await q('select balance from public.user_credits where user_id = $1', [user.id])).toEqual([{ balance: '5.00' }]);
    expect(await q(`select count(*)::int as n from nodeharbor.outbox where subject like '%has been renewed'`)).toEqual([{ n: 1 }]);
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  }, 60_000);
});
