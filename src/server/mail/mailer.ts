import nodemailer from 'nodemailer';
import type { Database } from '../db/database';
import type { Logger } from '../http/logger';

export type Mail = { to: string; subject: string; text: string; html?: string };

/** Sends e-mail. Every mail is recorded in nodeharbor.outbox; with SMTP_URL it is also relayed. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

export function createMailer(opts: { db: Database; smtpUrl?: string | undefined; from: string; logger: Logger }): Mailer {
  const transport = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : undefined;
  return {
    async send(mail) {
      const { rows } = await opts.db.query<{ id: number }>(
        `insert into nodeharbor.outbox (to_address, subject, text_body, html_body) values ($1, $2, $3, $4) returning id`,
        [mail.to, mail.subject, mail.text, mail.html ?? null],
      );
      const id = rows[0]!.id;
      if (!transport) {
        // No addresses or subjects in logs; the outbox id finds the mail.
        opts.logger.info('mail kept in outbox (no SMTP_URL)', { id });
        return;
      }
      try {
        await transport.sendMail({ from: opts.from, ...mail });
        await opts.db.query(`update nodeharbor.outbox set status = 'sent', sent_at = now() where id = $1`, [id]);
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e);
        await opts.db.query(`update nodeharbor.outbox set status = 'failed', error = $2 where id = $1`, [id, reason]);
        opts.logger.error('mail failed', { id, error: reason });
        throw e;
      }
    },
  };
}
