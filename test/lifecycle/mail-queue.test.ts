import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, expect, it } from 'vitest';
import { createUser } from '../../src/server/auth/users';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { sendRecovery } from '../../src/server/jobs/tasks/send-recovery';
import { startTestServer } from '../helpers/server';
import { jobsOf, startLifecycleServer, waitFor } from './helpers';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A relay that accepts connections and never says a word: a mail sent inline would hang on it. */
async function silentRelay(): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => void sockets.add(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

it('answers a recovery request at once, account or not, while the relay stalls', async () => {
  const s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', SMTP_URL: await silentRelay() });
  closers.push(() => s.stop());
  await createUser(s.deps.db, { email: 'known@nodeharbor.test', password: 'quiet-secret-pass' });
  const timed = async (email: string) => {
    const started = Date.now();
    const { error } = await s.client().auth.resetPasswordForEmail(email);
    expect(error).toBeNull();
    return Date.now() - started;
  };
  expect(await timed('known@nodeharbor.test')).toBeLessThan(2000);
  expect(await timed('unknown@nodeharbor.test')).toBeLessThan(2000);
  // The requests only queued the look-ups; their jobs queue the one mail, which waits for the relay.
  const jobDeps = await createJobDeps(s.deps);
  for (const job of await jobsOf(s.deps.db, 'send-recovery')) await sendRecovery.run(sendRecovery.payload.parse(job.payload), jobDeps);
  const { rows } = await s.deps.db.query('select to_address, status from nodeharbor.outbox');
  expect(rows).toEqual([{ to_address: 'known@nodeharbor.test', status: 'queued' }]);
  expect((await jobsOf(s.deps.db, 'send-email')).map((j) => j.status)).toEqual(['pending']);
});

it('retries a mail the relay refused, with back-off, until it is delivered once', async () => {
  const received: string[] = [];
  let refusals = 1;
  const relay = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        if (refusals-- > 0) return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        received.push(session.envelope.rcptTo.map((r) => r.address).join(','));
        callback();
      });
    },
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
  closers.push(() => new Promise<void>((r) => relay.close(() => r())));
  const s = await startLifecycleServer({ SMTP_URL: `smtp://127.0.0.1:${(relay.server.address() as AddressInfo).port}` });
  closers.push(() => s.stop());
  await createUser(s.deps.db, { email: 'retry@nodeharbor.test', password: 'quiet-secret-pass' });
  expect((await s.client().auth.resetPasswordForEmail('retry@nodeharbor.test')).error).toBeNull();

  const [job] = await waitFor('the first refusal', async () => {
    const jobs = await jobsOf(s.deps.db, 'send-email');
    return jobs[0]?.attempts === 1 && jobs[0].status === 'pending' ? jobs : undefined;
  });
  expect((await s.deps.db.query('select status, error from nodeharbor.outbox')).rows).toEqual([
    { status: 'failed', error: expect.stringContaining('Try again later') },
  ]);
  // The back-off is 2 s after a first failure; the retry then delivers.
  await waitFor('the delivery', async () => received.length === 1, 8000);
  await waitFor('the job to be done', async () => (await jobsOf(s.deps.db, 'send-email'))[0]!.status === 'done');
  expect((await jobsOf(s.deps.db, 'send-email'))[0]).toMatchObject({ id: job!.id, attempts: 2 });
  expect((await s.deps.db.query('select status, attempts from nodeharbor.outbox')).rows).toEqual([{ status: 'sent', attempts: 2 }]);
  expect(received).toEqual(['retry@nodeharbor.test']);
});
