import { z } from 'zod';
import { statementReadyMail } from '../../mail/templates/statement-ready';
import { fromMail, notify } from '../../notify/notify';
import { defineTask, type JobDeps } from '../task';

/**
 * Days into a month on which last month's notices still go out: a server that was down on the
 * 1st catches up, and one first started mid-month does not mail about a month long past.
 */
export const STATEMENT_NOTICE_DAYS = 3;

/** The UTC month before `now`'s, as YYYY-MM, and its bounds. */
export function lastMonth(now: Date): { month: string; from: Date; to: Date } {
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return { month: from.toISOString().slice(0, 7), from, to };
}

/**
 * Tells every customer with a line last month that its statement is ready (the statement_ready
 * event: e-mail unless they turned it off, and their channels), once: each notice is keyed by
 * customer and month, and the month is marked done when all are queued. Does nothing after the
 * first STATEMENT_NOTICE_DAYS of a month. Answers how many customers it told.
 */
export async function queueStatementNotices({ db, mailer, publicUrl }: Pick<JobDeps, 'db' | 'mailer' | 'publicUrl'>, now: Date): Promise<number> {
  if (now.getUTCDate() > STATEMENT_NOTICE_DAYS) return 0;
  const { month, from, to } = lastMonth(now);
  const done = await db.query('select 1 from private.statement_notices where month = $1', [from]);
  if (done.rows.length) return 0;
  const { rows } = await db.query<{ user_id: string; email: string }>('select user_id, email from private.statement_customers($1, $2)', [from, to]);
  const url = `${publicUrl}/dashboard/billing#statements`;
  for (const { user_id: userId, email } of rows) {
    const mail = statementReadyMail({ to: email, month, url });
    await db.transaction((tx) =>
      notify(tx, { mailer }, { userId, event: 'statement_ready', key: `statement-ready:${userId}:${month}`, mail, message: fromMail(mail, { month }, url) }),
    );
  }
  await db.query('insert into private.statement_notices (month) values ($1) on conflict do nothing', [from]);
  return rows.length;
}

/** Hourly: on the 1st (or within STATEMENT_NOTICE_DAYS), last month's statement notices. */
export const statementNotices = defineTask({
  name: 'statement-notices',
  lane: 'upkeep',
  payload: z.object({}),
  async run(_payload, deps) {
    await queueStatementNotices(deps, new Date());
  },
});
