import type { OutboundClient } from '../outbound/outbound-client';
import { cutText } from './senders/results';

/** The parts of the Telegram Bot API's objects NodeHarbor reads (https://core.telegram.org/bots/api#available-types). */
export type TelegramUser = { id: number; is_bot: boolean; first_name: string; username?: string };
export type TelegramChat = { id: number; type: string; title?: string; username?: string; first_name?: string; last_name?: string };
export type TelegramMessage = { message_id: number; date: number; chat: TelegramChat; from?: TelegramUser; text?: string };
export type TelegramUpdate = { update_id: number; message?: TelegramMessage };

/**
 * A call the Bot API answered with `ok: false` (its `error_code`, usually the HTTP status, and its
 * `description`), or an answer that was not the API's JSON. `retryAfterSeconds` is
 * ResponseParameters' retry_after (flood control). The bot's token is never part of it.
 */
export class TelegramApiError extends Error {
  constructor(
    readonly errorCode: number | null,
    readonly description: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(`Telegram Bot API: ${errorCode ?? 'no answer'} ${description}`);
    this.name = 'TelegramApiError';
  }
}

export type TelegramBot = {
  /** The bot itself (its @username for Settings' link instructions). */
  getMe(): Promise<TelegramUser>;
  /**
   * Short polling (timeout 0): updates from `offset` on, at most `limit` (1–100). Updates below
   * `offset` are confirmed and Telegram forgets them, so pass the last update_id + 1.
   */
  getUpdates(offset?: number, limit?: number): Promise<TelegramUpdate[]>;
  /** Plain text (no parse_mode, so nothing in it is read as markup), cut to Telegram's 4096 characters. */
  sendMessage(chatId: string, text: string): Promise<TelegramMessage>;
};

/** sendMessage's limit: "1-4096 characters after entities parsing". */
export const TELEGRAM_TEXT_LIMIT = 4096;
/** A hundred updates of long messages pass the client's usual 64 KiB cap; this is still bounded. */
const UPDATES_MAX_BYTES = 1024 * 1024;

/**
 * A small client of the Telegram Bot API (https://core.telegram.org/bots/api#making-requests):
 * POST https://api.telegram.org/bot<token>/<method> with a JSON body, through the bounded outbound
 * client (TELEGRAM_API_URL is a stand-in on OUTBOUND_ALLOW in tests).
 */
export function createTelegramBot(opts: { token: string; apiUrl: string; client: OutboundClient }): TelegramBot {
  const base = opts.apiUrl.replace(/\/+$/, '');

  async function call<T>(method: string, params: Record<string, unknown>, maxResponseBytes?: number): Promise<T> {
    // Any failure of the request is rethrown without the URL, which holds the token.
    const res = await opts.client.request(`${base}/bot${opts.token}/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(params),
      maxResponseBytes,
    });
    let answer: { ok?: unknown; result?: unknown; error_code?: unknown; description?: unknown; parameters?: { retry_after?: unknown } } | undefined;
    try {
      answer = res.truncated ? undefined : (JSON.parse(res.body) as typeof answer);
    } catch {
      answer = undefined;
    }
    if (answer?.ok === true) return answer.result as T;
    const code = typeof answer?.error_code === 'number' ? answer.error_code : res.status;
    const description = typeof answer?.description === 'string' ? answer.description.slice(0, 200) : `HTTP ${res.status}`;
    const retryAfter = answer?.parameters?.retry_after;
    throw new TelegramApiError(code, description, typeof retryAfter === 'number' ? retryAfter : undefined);
  }

  return {
    getMe: () => call<TelegramUser>('getMe', {}),
    getUpdates: (offset, limit = 100) =>
      call<TelegramUpdate[]>(
        'getUpdates',
        { ...(offset === undefined ? {} : { offset }), limit: Math.min(Math.max(1, Math.trunc(limit)), 100), timeout: 0, allowed_updates: ['message'] },
        UPDATES_MAX_BYTES,
      ),
    sendMessage: (chatId, text) =>
      call<TelegramMessage>('sendMessage', { chat_id: chatId, text: cutText(text, TELEGRAM_TEXT_LIMIT), link_preview_options: { is_disabled: true } }),
  };
}
