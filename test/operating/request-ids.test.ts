import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/server/http/logger';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { startWorker } from '../../src/server/jobs/worker';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/wait';
import { createTestUser, GALA_KEY, TOWN_STAR } from '../helpers/users';

// Logs an operator can follow (issue 22): a request id on every line of a request, answered in
// X-Request-Id and carried into the jobs the request enqueues; errors with their causes.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const logLines: string[] = [];
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', PROVISION_INSTALL_SECONDS: '0' }, { logLines });
});
afterAll(() => s.stop());
const logged = () => logLines.map((l) => JSON.parse(l) as Record<string, unknown>);

it('answers each request with an id of its own, keeps a plain one a proxy sent, and replaces any other', async () => {
  const a = (await fetch(`${s.url}/live`)).headers.get('x-request-id');
  const b = (await fetch(`${s.url}/live`)).headers.get('x-request-id');
  expect(a).toMatch(UUID);
  expect(b).toMatch(UUID);
  expect(a).not.toBe(b);
  const kept = await fetch(`${s.url}/live`, { headers: { 'X-Request-Id': 'lb-7f3a_2=' } });
  expect(kept.headers.get('x-request-id')).toBe('lb-7f3a_2=');
  for (const hostile of ['a"}, "level":"error', 'x'.repeat(129), 'two words']) {
    const r = await fetch(`${s.url}/live`, { headers: { 'X-Request-Id': hostile } });
    expect(r.headers.get('x-request-id'), hostile).toMatch(UUID);
  }
});

it('writes the id on the request’s log lines, and on the worker’s lines for the job it enqueued', async () => {
  const u = await createTestUser(s, { credits: 20 });
  const res = await fetch(`${s.url}/rest/v1/rpc/create_service_securely`, {
    method: 'POST',
    headers: { apikey: s.anonKey, Authorization: `Bearer ${u.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ p_name: 'traced', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR }),
  });
  expect(res.status).toBe(200);
  const id = res.headers.get('x-request-id')!;
  const service = ((await res.json()) as { id: string }).id;
  expect(logged().find((l) => l.msg === 'request' && l.requestId === id)).toMatchObject({ path: '/rest/v1/rpc/create_service_securely', status: 200 });

  const { rows } = await s.rawDb.query<{ id: number; request_id: string | null }>(
    `select id, request_id from nodeharbor.jobs where task = 'install-service' and payload ->> 'serviceId' = $1`,
    [service],
  );
  expect(rows).toEqual([{ id: expect.any(Number), request_id: id }]);
  const worker = startWorker(await createJobDeps(s.deps), { concurrency: { nodes: 1, upkeep: 1 }, pollMs: 20, leaseSeconds: 30, schedules: [] });
  try {
    await until('the install to finish', async () => {
      const { rows: job } = await s.rawDb.query<{ status: string }>('select status from nodeharbor.jobs where id = $1', [rows[0]!.id]);
      return job[0]!.status === 'done';
    });
  } finally {
    await worker.stop();
  }
  const jobLines = logged().filter((l) => l.job === rows[0]!.id);
  expect(jobLines.map((l) => l.msg)).toContain('job done');
  for (const l of jobLines) expect(l.requestId).toBe(id);
  // A raw X-Request-Id the server did not keep stays in the request's headers, but the job gets the server's id.
  const renamed = await fetch(`${s.url}/rest/v1/rpc/create_service_securely`, {
    method: 'POST',
    headers: { apikey: s.anonKey, Authorization: `Bearer ${u.token}`, 'Content-Type': 'application/json', 'X-Request-Id': 'two words' },
    body: JSON.stringify({ p_name: 'traced-2', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR }),
  });
  expect(renamed.status).toBe(200);
  const assigned = renamed.headers.get('x-request-id')!;
  expect(assigned).toMatch(UUID);
  const second = ((await renamed.json()) as { id: string }).id;
  const { rows: secondJob } = await s.rawDb.query(`select request_id from nodeharbor.jobs where task = 'install-service' and payload ->> 'serviceId' = $1`, [
    second,
  ]);
  expect(secondJob).toEqual([{ request_id: assigned }]);
  // A job the worker enqueued on its own (no request) carries no id.
  await s.rawDb.query(`select nodeharbor.enqueue_job('reconcile-nodes', '{}', 'untraced')`);
  expect((await s.rawDb.query(`select request_id from nodeharbor.jobs where key = 'untraced'`)).rows).toEqual([{ request_id: null }]);
});

it('serialises an error with its type, message, stack and cause', () => {
  const lines: string[] = [];
  const logger = createLogger('info', (l) => lines.push(l));
  logger.error('backup failed', { err: new Error('could not write the file', { cause: new Error('ENOSPC: no space left on device') }) });
  const line = JSON.parse(lines[0]!) as {
    level: string;
    time: string;
    msg: string;
    err: { type: string; message: string; stack: string; cause?: { message: string } };
  };
  expect(line).toMatchObject({ level: 'error', msg: 'backup failed', err: { type: 'Error', message: 'could not write the file' } });
  expect(new Date(line.time).toISOString()).toBe(line.time);
  expect(line.err.stack).toContain('could not write the file');
  expect(JSON.stringify(line.err)).toContain('ENOSPC: no space left on device');
});
