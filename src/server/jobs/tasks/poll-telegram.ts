import { z } from 'zod';
import { telegramReplies } from '../../../shared/notifications';
import { hitRateLimit } from '../../http/rate-limit';
import type { TelegramBot, TelegramMessage } from '../../notify/telegram-bot';
import { defineTask, type JobDeps } from '../task';

/** How often the bot asks Telegram for new messages, when TELEGRAM_BOT_TOKEN is set. */
export const TELEGRAM_POLL_SECONDS = 3;
/** A poll's hold on the offset; a worker that died holding it lets the next poll in after this. */
const LEASE_SECONDS = 60;
/**
 * Messages one chat may send the bot within an hour (codes, right or wrong): with 50-bit codes that
 * live 15 minutes, guessing one is hopeless, and a chat that floods gets no more answers.
 */
const LINK_TRIES_PER_HOUR = 10;

/** "/start CODE" (the bot's deep link, also "/start@bot CODE") or the code alone. */
const CODE_MESSAGE = /^(?:\/start(?:@\w+)?\s+)?([A-Za-z2-9]{10})$/;

/**
 * Links Telegram chats to pending channels (issue 37): reads the bot's new messages from the
 * stored offset, links the channel whose unexpired code a chat sent (once: the code is spent),
 * answers the chat, and only then moves the offset past the batch, so a crash mid-batch reads it
 * again (a spent code then reads as wrong, and links nothing twice).
 */
export const pollTelegram = defineTask({
  name: 'poll-telegram',
  lane: 'upkeep',
  payload: z.object({}),
  async run(_payload, deps) {
    const bot = deps.channels.telegram;
    if (!bot) return;
    const { rows } = await deps.db.query<{ next_offset: string | null }>(
      `update private.telegram_poll set leased_until = now() + make_interval(secs => $1)
        where leased_until is null or leased_until < now() returning next_offset`,
      [LEASE_SECONDS],
    );
    // Another poll holds the offset: this period's is its.
    if (!rows[0]) return;
    let next = rows[0].next_offset === null ? undefined : Number(rows[0].next_offset);
    try {
      const updates = await bot.getUpdates(next);
      for (const update of updates) {
        if (update.message) await answer(deps, bot, update.message);
        next = update.update_id + 1;
      }
    } catch (e) {
      // The next period asks again; a retry of this job would only pile up behind it.
      deps.logger.warn('telegram updates not read', { error: e instanceof Error ? e.message : String(e) });
    } finally {
      await deps.db.query('update private.telegram_poll set next_offset = $1, leased_until = null', [next ?? null]);
    }
  },
});

async function answer(deps: JobDeps, bot: TelegramBot, message: TelegramMessage): Promise<void> {
  const chatId = String(message.chat.id);
  if ((await hitRateLimit(deps.db, `telegram-link:chat:${chatId}`, { max: LINK_TRIES_PER_HOUR, windowSeconds: 3600 })) > 0) return;
  const code = CODE_MESSAGE.exec((message.text ?? '').trim())?.[1];
  let reply: string = telegramReplies.help;
  if (code) {
    const title = message.chat.title ?? message.chat.username ?? ([message.chat.first_name, message.chat.last_name].filter(Boolean).join(' ') || null);
    const { rows } = await deps.db.query<{ name: string }>(
      `with linked as (select private.link_telegram_chat($1, $2, $3) as id)
       select c.name from linked join private.notification_channels c on c.id = linked.id`,
      [code, chatId, title],
    );
    reply = rows[0] ? telegramReplies.linked(rows[0].name) : telegramReplies.badCode;
    if (rows[0]) deps.logger.info('telegram chat linked');
  }
  // A chat that blocked the bot since it wrote must not hold up the others.
  await bot
    .sendMessage(chatId, reply)
    .catch((e: unknown) => deps.logger.warn('telegram answer not sent', { error: e instanceof Error ? e.message : String(e) }));
}
