import type { Context } from 'hono';
import { contactSchema, messages } from '../../shared/validation';
import type { AppDeps } from '../deps';
import { clientIp } from '../http/client-ip';
import { html, htmlText } from '../mail/html';
import { fail, invalid, jsonBody, overLimit } from './function-response';

/** Five messages per address every ten minutes is plenty for a person and too few for a flood. */
const LIMIT = { max: 5, windowSeconds: 600 };

/** The contact form of spec §5: validated by the shared rules, stored, and copied to CONTACT_TO. */
export async function contactForm(deps: AppDeps, c: Context) {
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const body = read.body;
  // A filled honeypot (of any type) is a bot: say so before any other rule, store nothing.
  if (body.honeypot !== undefined && body.honeypot !== null && body.honeypot !== '') return fail(c, 400, messages.bot);
  const parsed = contactSchema.safeParse(body);
  if (!parsed.success) return invalid(c, parsed.error);
  const limited = await overLimit(
    deps,
    c,
    `contact:ip:${clientIp(c, deps.config.trustProxy)}`,
    LIMIT,
    (wait) => `Too many messages. Please try again in ${Math.ceil(wait / 60)} minutes.`,
  );
  if (limited) return limited;
  const m = parsed.data;
  await deps.db.query('insert into public.contact_messages (name, email, topic, message) values ($1, $2, $3, $4)', [m.name, m.email, m.topic, m.message]);
  if (deps.config.contactTo) {
    try {
      await deps.mailer.send({
        to: deps.config.contactTo,
        // The subject is logged by the mailer, so it names the topic only, never the sender.
        subject: `Contact form: ${m.topic}`,
        text: `From: ${m.name} <${m.email}>\nTopic: ${m.topic}\n\n${m.message}\n`,
        html: htmlText`<p>From: ${m.name} &lt;${m.email}&gt;<br>Topic: ${m.topic}</p><p>${m.message.split('\n').map((line, i) => html`${i ? html`<br>` : ''}${line}`)}</p>`,
      });
    } catch {
      // The message is stored and the failed copy is kept (and logged) in the outbox: the sender is done.
    }
  }
  return c.json({ success: true });
}
