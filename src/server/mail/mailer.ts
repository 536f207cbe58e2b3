import nodemailer from 'nodemailer';
import type { Database, Queryable } from '../db/database';
import type { Logger } from '../http/logger';
import { enqueue } from '../jobs/queue';

/**
 * A file sent with a mail: its content in base64, so that the outbox keeps it as JSON, or the
 * number of a billing document, drawn when the mail is sent (decision 049): never in the request
 * that made it.
 */
export type MailAttachment = { filename: string; contentType: string } & ({ content: string } | { document: string });

export type Mail = { to: string; subject: string; text: string; html?: string; attachments?: MailAttachment[] };

/** Attempts of one queued mail before it is left 'failed' in the outbox (back-off up to ~4 min). */
const MAIL_ATTEMPTS = 8;

/**
 * Sends e-mail. Every mail is recorded in nodeharbor.outbox; with SMTP_URL it is also relayed,
 * otherwise it stays there ('kept') and is logged.
 */
export interface Mailer {
  /** Sends now and throws when the relay refuses (for callers that must know at once). */
  send(mail: Mail): Promise<void>;
  /**
   * Records the mail on `q` (which may be an open transaction) and, with a relay, enqueues a
   * send-email job that delivers it with retries. With `key`, a mail already recorded under the
   * same key is not recorded again. Returns the outbox id, or null for a repeated key.
   */
  queue(q: Queryable, mail: Mail, opts?: { key?: string }): Promise<number | null>;
  /**
   * Delivers one queued mail; a mail already sent or kept is left alone (jobs may run twice). A mail
   * to an address whose earlier mail is still on its way (its send-email job pending or running)
   * is not sent: the earlier one's id is returned, and the caller tries again later.
   */
  deliver(outboxId: number): Promise<number | undefined>;
}

/** Draws the PDF of the billing document numbered `number`, or null when it cannot (logged). */
export type DrawDocument = (number: string) => Promise<Buffer | null>;

export function createMailer(opts: { db: Database; smtpUrl?: string | undefined; from: string; logger: Logger; drawDocument?: DrawDocument }): Mailer {
  const transport = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : undefined;
  // Field by field: a stored path or href would make nodemailer read a file or a URL.
  const file = async (a: MailAttachment) => {
    if ('content' in a) return { filename: a.filename, contentType: a.contentType, content: a.content, encoding: 'base64' };
    const pdf = (await opts.drawDocument?.(a.document)) ?? null;
    // Thrown: the mail says it is attached, so it waits for a retry rather than going without.
    if (!pdf) throw new Error(`document ${a.document} could not be drawn`);
    return { filename: a.filename, contentType: a.contentType, content: pdf };
  };
  const relay = async (id: number, mail: Mail) => {
    try {
      const attachments = mail.attachments && (await Promise.all(mail.attachments.map(file)));
      await transport!.sendMail({ from: opts.from, ...mail, attachments });
      await opts.db.query(`update nodeharbor.outbox set status = 'sent', sent_at = now(), error = null where id = $1`, [id]);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      await opts.db.query(`update nodeharbor.outbox set status = 'failed', error = $2 where id = $1`, [id, reason]);
      opts.logger.error('mail failed', { id, error: reason });
      throw e;
    }
  };
  const record = async (q: Queryable, mail: Mail, status: 'queued' | 'kept', key: string | null) => {
    const { rows } = await q.query<{ id: number }>(
      `insert into nodeharbor.outbox (to_address, subject, text_body, html_body, status, key, attachments)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb)
       on conflict (key) do nothing returning id`,
      // As JSON text: the driver would send a JavaScript array as a PostgreSQL array.
      [mail.to, mail.subject, mail.text, mail.html ?? null, status, key, mail.attachments?.length ? JSON.stringify(mail.attachments) : null],
    );
    return rows[0]?.id ?? null;
  };
  // No addresses or subjects in logs; the outbox id finds the mail.
  const logKept = (id: number) => opts.logger.info('mail kept in outbox (no SMTP_URL)', { id });
  return {
    async send(mail) {
      const id = (await record(opts.db, mail, transport ? 'queued' : 'kept', null))!;
      if (!transport) return logKept(id);
      await relay(id, mail);
    },
    async queue(q, mail, o = {}) {
      const id = await record(q, mail, transport ? 'queued' : 'kept', o.key ?? null);
      if (id === null) return null;
      // Without a relay the outbox is the destination: there is nothing left to deliver.
      if (!transport) logKept(id);
      else await enqueue(q, 'send-email', { outboxId: id }, { maxAttempts: MAIL_ATTEMPTS });
      return id;
    },
    async deliver(outboxId) {
      // Exact addresses: a service's mails all go to its owner's one address, written the same way.
      const { rows: earlier } = await opts.db.query<{ id: number }>(
        `select o.id from nodeharbor.outbox m
           join nodeharbor.outbox o on o.to_address = m.to_address and o.id < m.id and o.status in ('queued', 'failed')
          where m.id = $1
            and exists (select 1 from nodeharbor.jobs j
                         where j.task = 'send-email' and j.status in ('pending', 'running') and j.payload ->> 'outboxId' = o.id::text)
          order by o.id limit 1`,
        [outboxId],
      );
      if (earlier[0]) return Number(earlier[0].id);
      const { rows } = await opts.db.query<{
        to_address: string;
        subject: string;
        text_body: string;
        html_body: string | null;
        attachments: MailAttachment[] | null;
        status: string;
      }>(
        `update nodeharbor.outbox set attempts = attempts + 1 where id = $1
         returning to_address, subject, text_body, html_body, attachments, status`,
        [outboxId],
      );
      const row = rows[0];
      if (!row || row.status === 'sent' || row.status === 'kept') return;
      if (!transport) {
        await opts.db.query(`update nodeharbor.outbox set status = 'kept' where id = $1`, [outboxId]);
        logKept(outboxId);
        return;
      }
      await relay(outboxId, {
        to: row.to_address,
        subject: row.subject,
        text: row.text_body,
        ...(row.html_body ? { html: row.html_body } : {}),
        ...(row.attachments ? { attachments: row.attachments } : {}),
      });
    },
  };
}
