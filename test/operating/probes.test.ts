import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/server/app';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { startWorker } from '../../src/server/jobs/worker';
import type { Lifecycle } from '../../src/server/shutdown';
import { createTestDatabase } from '../helpers/database';
import { startTestServer, type TestServer } from '../helpers/server';

// /live and /ready (issue 22): what an orchestrator asks, on the app npm start builds.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

const ask = async (app: ReturnType<typeof createApp>, path: string) => {
  const res = await app.request(path);
  return { status: res.status, body: (await res.json()) as unknown, cache: res.headers.get('cache-control') };
};

it('/live answers while the process does, whatever the database', async () => {
  const dead = await createTestDatabase();
  await dead.db.close();
  const app = createApp({ ...s.deps, db: dead.db });
  expect(await ask(app, '/live')).toEqual({ status: 200, body: { status: 'ok' }, cache: 'no-store' });
  await dead.drop();
});

it('/ready is ready with the database answering, every migration applied, and the worker turning; not once the worker stops', async () => {
  const worker = startWorker(await createJobDeps(s.deps), { concurrency: { nodes: 1, upkeep: 1 }, pollMs: 20, leaseSeconds: 30, schedules: [] });
  const app = createApp({ ...s.deps, worker });
  expect(await ask(app, '/ready')).toEqual({
    status: 200,
    body: { status: 'ready', checks: { process: 'ok', database: 'ok', migrations: 'ok', worker: 'ok' } },
    cache: 'no-store',
  });
  await worker.stop();
  expect(await ask(app, '/ready')).toMatchObject({ status: 503, body: { status: 'not ready', checks: { database: 'ok', worker: 'stopped' } } });
});

it('/ready turns not ready when the process begins to stop, as /healthz does', async () => {
  const lifecycle: Lifecycle = { stopping: false };
  const app = createApp({ ...s.deps, lifecycle });
  expect((await ask(app, '/ready')).status).toBe(200);
  lifecycle.stopping = true;
  expect(await ask(app, '/ready')).toMatchObject({ status: 503, body: { status: 'not ready', checks: { process: 'stopping', database: 'ok' } } });
  expect((await app.request('/healthz')).status).toBe(503);
});

it('/ready is not ready while a migration is pending or was edited after it was applied', async () => {
  const app = createApp(s.deps);
  const [last] = (await s.rawDb.query<{ name: string; checksum: string }>('select name, checksum from nodeharbor.migrations order by name desc limit 1')).rows;
  await s.rawDb.query('delete from nodeharbor.migrations where name = $1', [last!.name]);
  expect(await ask(app, '/ready')).toMatchObject({ status: 503, body: { checks: { database: 'ok', migrations: 'pending' } } });
  await s.rawDb.query('insert into nodeharbor.migrations (name, checksum) values ($1, $2)', [last!.name, 'f'.repeat(64)]);
  expect(await ask(app, '/ready')).toMatchObject({ status: 503, body: { checks: { database: 'ok', migrations: 'edited' } } });
  await s.rawDb.query('update nodeharbor.migrations set checksum = $2 where name = $1', [last!.name, last!.checksum]);
  expect((await ask(app, '/ready')).status).toBe(200);
});

it('/ready says the database is unavailable when it does not answer', async () => {
  const dead = await createTestDatabase();
  await dead.db.close();
  const app = createApp({ ...s.deps, db: dead.db });
  expect(await ask(app, '/ready')).toEqual({
    status: 503,
    body: { status: 'not ready', checks: { process: 'ok', database: 'unavailable' } },
    cache: 'no-store',
  });
  await dead.drop();
});
