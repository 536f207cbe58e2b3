import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import type { Queryable } from '../../src/server/db/database';
import { startAppWorker } from '../../src/server/jobs/app-worker';
import type { Worker } from '../../src/server/jobs/worker';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/wait';

/** A mail as the local SMTP server received it. */
export type ReceivedMail = { to: string[]; subject: string; raw: string };

/** A real SMTP server on a free loopback port, keeping what it receives. */
export async function startSmtp(): Promise<{ url: string; mails: ReceivedMail[]; stop(): Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (d: Buffer) => (raw += d.toString()));
      stream.on('end', () => {
        const subject = /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '';
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), subject, raw });
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, mails, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The real server with the app's own worker, provisioning at test speed. */
export async function startLifecycleServer(env: Record<string, string> = {}): Promise<TestServer & { worker: Worker }> {
  const s = await startTestServer({
    RATE_LIMITS_ENABLED: 'false',
    PROVISION_INSTALL_SECONDS: '0',
    PROVISION_DELETE_SECONDS: '0',
    INSTALL_SETTLE_SECONDS: '0',
    WORKER_POLL_MS: '50',
    ...env,
  });
  const worker = await startAppWorker(s.deps);
  return {
    ...s,
    worker,
    async stop() {
      await worker.stop();
      await s.stop();
    },
  };
}

/** Polls `check` until it returns something other than undefined/false, or fails after `timeoutMs`. */
export function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  return until(what, check, timeoutMs);
}

/** Jobs of one task, oldest first. */
export async function jobsOf(db: Queryable, task: string) {
  return (
    await db.query<{ id: number; status: string; attempts: number; key: string | null; payload: Record<string, unknown> }>(
      'select id, status, attempts, key, payload from nodeharbor.jobs where task = $1 order by id',
      [task],
    )
  ).rows;
}

/** True once no job is pending or running. */
export async function queueIsIdle(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from nodeharbor.jobs where status in ('pending', 'running')`);
  return rows[0]!.n === 0;
}
