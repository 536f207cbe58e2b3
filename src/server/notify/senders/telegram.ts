import { deliveryErrors } from '../../../shared/notifications';
import type { OutboundMessage, SendResult } from '../channel-sender';
import { TELEGRAM_TEXT_LIMIT, TelegramApiError, type TelegramBot } from '../telegram-bot';
import { cutText, failed, fromRequestError, retryAfterSeconds } from './results';

/** A chat's id as Telegram gives it: an integer, negative for groups and channels. */
const CHAT_ID = /^-?\d{1,20}$/;

/** The message as plain text: its title, its text and its link, within sendMessage's limit. */
export function telegramText(message: OutboundMessage): string {
  const tail = message.url ? `\n\n${message.url}` : '';
  return `${cutText(`${message.title}\n\n${message.text}`, TELEGRAM_TEXT_LIMIT - tail.length)}${tail}`;
}

/**
 * sendMessage to a linked chat. Flood control (429 with retry_after) and Telegram's own failures
 * are retried; a bot the user blocked or that left the chat (403), or a chat Telegram no longer
 * knows (400 chat not found), is not. A token Telegram refuses (401, 404) is the operator's to
 * fix, not the customer's: retried, so the channel is not blamed for it at once.
 */
export async function sendTelegram(bot: TelegramBot | undefined, chatId: string, message: OutboundMessage): Promise<SendResult> {
  if (!bot) return failed(deliveryErrors.telegramUnavailable, null, true);
  if (!CHAT_ID.test(chatId)) return failed(deliveryErrors.telegramChatNotFound, null, false);
  try {
    await bot.sendMessage(chatId, telegramText(message));
    return { ok: true, status: 200 };
  } catch (e) {
    if (!(e instanceof TelegramApiError)) return fromRequestError(e);
    const code = e.errorCode;
    if (code === 429) return failed(deliveryErrors.rateLimited, code, true, retryAfterSeconds(e.retryAfterSeconds));
    if (code === 403) return failed(deliveryErrors.telegramBlocked, code, false);
    if (code === 400 && /chat not found/i.test(e.description)) return failed(deliveryErrors.telegramChatNotFound, code, false);
    if (code === 401 || code === 404) return failed(deliveryErrors.telegramUnavailable, code, true);
    // Another 400 (a group that became a supergroup has a new id) does not pass on a second try either.
    return failed(deliveryErrors.status(code ?? 0), code, code === null || code >= 500 || code === 408);
  }
}
