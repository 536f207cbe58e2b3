import type { Command } from './command';

/** Shows the newest mails of the outbox: how a newcomer without SMTP reads a reset link. */
export const mailList: Command = {
  usage: '[--to E] [--limit N]',
  summary: 'Show the newest e-mails the server sent or kept (text bodies included).',
  options: { to: { type: 'string' }, limit: { type: 'string' } },
  async run({ db }, values, print) {
    const limit = Math.min(Math.max(Number(values.limit ?? 5) || 5, 1), 100);
    const to = typeof values.to === 'string' ? values.to.toLowerCase() : null;
    const { rows } = await db.query<{ created_at: Date; to_address: string; subject: string; status: string; text_body: string }>(
      `select created_at, to_address, subject, status, text_body from nodeharbor.outbox
       where $1::text is null or to_address = $1 order by id desc limit $2`,
      [to, limit],
    );
    if (rows.length === 0) print('No mail.');
    for (const m of rows) {
      print(`--- ${m.created_at.toISOString()}  to ${m.to_address}  [${m.status}]\nSubject: ${m.subject}\n\n${m.text_body}\n`);
    }
  },
};
