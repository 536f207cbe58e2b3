import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startAppWorker } from '../../src/server/jobs/app-worker';
import type { Worker } from '../../src/server/jobs/worker';
import { invokeFunction } from '../helpers/functions';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, type TestUser } from '../helpers/users';
import { jobsOf, queueIsIdle, waitFor } from './helpers';

// Issue 36, item 7: a failed installation's mails arrive in order, "being set up" before "failed",
// never after. Two ways they did not: the relay refused the first for a while and the second went
// past it, or the dashboard asked for the first after the installation had already failed.

/** A plan whose node has no image: its installation fails at once, on any engine. */
const IMAGELESS = '00000000-0000-4000-8000-0000000000c7';

let s: TestServer;
let relayUrl: string;
let stopRelay: () => Promise<void>;
/** What the relay accepted, in order. */
const received: string[] = [];
/** Subjects the relay refuses once more each (a 451, as a busy relay says). */
const refuseOnce = new Set<string>();
let worker: Worker | undefined;

beforeAll(async () => {
  const relay = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      let raw = '';
      stream.on('data', (d: Buffer) => (raw += d.toString()));
      stream.on('end', () => {
        const subject = /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '';
        if (refuseOnce.delete(subject)) return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        received.push(subject);
        callback();
      });
    },
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
  relayUrl = `smtp://127.0.0.1:${(relay.server.address() as AddressInfo).port}`;
  stopRelay = () => new Promise<void>((r) => relay.close(() => r()));
  // No worker yet: each test starts it once its mails are where it wants them.
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', SMTP_URL: relayUrl, WORKER_POLL_MS: '50' });
  await s.deps.db.query(
    `insert into public.products (id, name, price, is_active, renew_interval, base_product_code, node_image)
     values ($1, 'Imageless', 0, true, '1 MONTH', 'IMAGELESS', null)`,
    [IMAGELESS],
  );
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  received.length = 0;
});
afterAll(async () => {
  await s.stop();
  await stopRelay();
});

async function createService(owner: TestUser, name: string): Promise<string> {
  const { data, error } = await owner.client.rpc('create_service_securely', {
    p_name: name,
    p_description: null,
    p_api_key: GALA_KEY,
    p_product_id: IMAGELESS,
  });
  expect(error).toBeNull();
  return (data as { id: string }).id;
}
const setUp = (name: string) => `Your service ${name} is being set up`;
const failed = (name: string) => `The installation of ${name} failed`;
const idle = () => waitFor('the queue to drain', () => queueIsIdle(s.deps.db), 20_000);

it('delivers "failed" only after "being set up", however long the relay refuses the first', async () => {
  const owner = await createTestUser(s);
  const id = await createService(owner, 'ordered');
  // The dashboard's call, as it makes it after creating: the mail is queued before the worker runs.
  expect((await invokeFunction(owner.client, 'send-sqs-message', { serviceData: { id } })).status).toBe(200);
  // The relay refuses the first mail once: its job waits 2 s to try again, while the installation fails at once.
  refuseOnce.add(setUp('ordered'));
  worker = await startAppWorker(s.deps);
  await waitFor('both mails', async () => received.length === 2, 20_000);
  expect(received).toEqual([setUp('ordered'), failed('ordered')]);
  await idle();
  // The failure's mail waited without spending its attempts: it went out at its first.
  const { rows } = await s.deps.db.query<{ subject: string; status: string; attempts: number }>(
    'select subject, status, attempts from nodeharbor.outbox where to_address = $1 order by id',
    [owner.email],
  );
  expect(rows).toEqual([
    { subject: setUp('ordered'), status: 'sent', attempts: 2 },
    { subject: failed('ordered'), status: 'sent', attempts: 1 },
  ]);
  expect((await jobsOf(s.deps.db, 'send-email')).every((j) => j.status === 'done')).toBe(true);
});

it('sends no "being set up" for an installation that is already over: it would arrive after "failed"', async () => {
  const owner = await createTestUser(s);
  const id = await createService(owner, 'too-late');
  worker = await startAppWorker(s.deps);
  await waitFor('the installation to fail', async () => received.includes(failed('too-late')), 20_000);
  // The dashboard's call comes late (a slow network): it is answered, and nothing is mailed.
  expect((await invokeFunction(owner.client, 'send-sqs-message', { serviceData: { id } })).status).toBe(200);
  await idle();
  const { rows } = await s.deps.db.query<{ subject: string }>('select subject from nodeharbor.outbox where to_address = $1 order by id', [owner.email]);
  expect(rows.map((r) => r.subject)).toEqual([failed('too-late')]);
  expect(received).toEqual([failed('too-late')]);
});
