import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { z } from 'zod';
import { CHANNEL_KINDS, CHANNEL_NAME_MAX, notificationMessages } from '../../shared/notifications';
import { messages } from '../../shared/validation';
import { isDbError } from '../db/database';
import { withClaims } from '../db/with-claims';
import type { AppDeps } from '../deps';
import type { ChannelTarget } from '../notify/channel-sender';
import { channelsFor, type Channels } from '../notify/channels';
import { fail, invalid, jsonBody, overLimit } from './function-response';
import { signedInPastSecondFactor } from './second-factor';

const schema = z.object({
  kind: z.enum(CHANNEL_KINDS, { error: notificationMessages.badKind }),
  name: z
    .string({ error: notificationMessages.nameRequired })
    .trim()
    .min(1, notificationMessages.nameRequired)
    .max(CHANNEL_NAME_MAX, notificationMessages.nameTooLong),
  // Longer than any real webhook URL; the sender's check reads the rest.
  url: z.string().max(2048, notificationMessages.badWebhookUrl).optional(),
});

/**
 * Far more than a person adds by hand (MAX_CHANNELS caps what is kept): a script that adds and
 * removes in a loop does not make the server resolve names for it without end.
 */
const LIMIT = { max: 30, windowSeconds: 3600 };

/** The SQL function's refusals (migration 0053) as HTTP answers. */
const STATUS_OF: Record<string, 400 | 403 | 404> = { '22023': 400, '42501': 403, PT404: 404 };

/**
 * A Standard Webhooks signing secret: `whsec_` and the base64 of 24 random bytes (the spec asks
 * for 24 to 64), which the customer's verifier takes as it is.
 */
const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** What the owner sees of a target: never Discord's token, a secret or a URL's query. */
function hintOf(kind: 'discord' | 'webhook', url: string): string {
  const u = new URL(url);
  if (kind === 'webhook') return `${u.origin}${u.pathname}`;
  const id = u.pathname.split('/').at(-2) ?? '';
  return `Discord webhook …/${id.slice(-4)}`;
}

const botNames = new WeakMap<Channels, Promise<string | undefined>>();

/** The bot's @username for the link instructions, asked of Telegram once (undefined when it did not answer). */
function botNameOf(channels: Channels): Promise<string | undefined> {
  let name = botNames.get(channels);
  if (!name) {
    name = channels.telegram!.getMe().then(
      (me) => me.username,
      () => {
        botNames.delete(channels);
        return undefined;
      },
    );
    botNames.set(channels, name);
  }
  return name;
}

/**
 * notification-channel: adds a Discord, Telegram or webhook channel for the signed-in caller past
 * the second factor they enrolled. A URL is checked before it is saved (its form, and every address
 * its host resolves to: no private, loopback, link-local or metadata address); the webhook's secret
 * is made here and answered this once; a Telegram channel waits for the code its answer carries.
 * The database counts the caller's channels and webhooks.
 */
export async function notificationChannel(deps: AppDeps, c: Context) {
  const caller = await signedInPastSecondFactor(deps, c, messages.notAuthenticated);
  if (caller instanceof Response) return caller;
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const parsed = schema.safeParse(read.body);
  if (!parsed.success) return invalid(c, parsed.error);
  const limited = await overLimit(deps, c, `notification-channel:user:${caller.userId}`, LIMIT, () => notificationMessages.tooManyAdditions);
  if (limited) return limited;
  const { kind, name, url } = parsed.data;
  const channels = channelsFor(deps.config);
  let target: ChannelTarget | undefined;
  let hint: string | null = null;
  if (kind === 'telegram') {
    if (!channels.telegram) return fail(c, 400, notificationMessages.telegramOff);
  } else {
    const refused =
      url === undefined ? (kind === 'discord' ? notificationMessages.badDiscordUrl : notificationMessages.badWebhookUrl) : await channels.checkUrl(kind, url);
    if (refused) return fail(c, 400, refused);
    target = kind === 'webhook' ? { kind, url: url!, secret: newWebhookSecret() } : { kind, url: url! };
    hint = hintOf(kind, url!);
  }
  try {
    const made = await withClaims(deps.db, { role: 'authenticated', claims: caller.claims }, async (tx) => {
      const { rows } = await tx.query<{ id: string; code: string | null }>('select id, code from private.create_notification_channel($1, $2, $3, $4)', [
        kind,
        name,
        target ? JSON.stringify(target) : null,
        hint,
      ]);
      return rows[0]!;
    });
    const bot = kind === 'telegram' ? await botNameOf(channels) : undefined;
    return c.json(
      {
        id: made.id,
        ...(target?.kind === 'webhook' ? { secret: target.secret } : {}),
        ...(made.code ? { code: made.code } : {}),
        ...(bot ? { bot } : {}),
      },
      200,
      { 'Cache-Control': 'no-store' },
    );
  } catch (e) {
    if (!isDbError(e) || !STATUS_OF[e.code!]) throw e;
    return fail(c, STATUS_OF[e.code!]!, e.message);
  }
}
