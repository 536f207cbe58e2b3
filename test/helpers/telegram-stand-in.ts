import { randomBytes } from 'node:crypto';
import { json, startHttpStandIn } from './http-stand-in';

/**
 * A local stand-in for the Telegram Bot API (https://core.telegram.org/bots/api): GET or POST
 * /bot<token>/<method> with parameters in the query string, a JSON body or a form, answered in the
 * API's envelope ({ok: true, result} or {ok: false, error_code, description, parameters?}).
 * getMe; getUpdates with its offset semantics (updates below the offset are confirmed and
 * forgotten; a negative offset takes the last ones); sendMessage, to chats the bot knows (a chat
 * that wrote to it, or added), answering 400 "chat not found", 403 "bot was blocked by the user",
 * 429 with ResponseParameters' retry_after when told. A wrong token is answered 401 Unauthorized.
 */
export type TelegramSent = { chatId: string; text: string; params: Record<string, unknown> };

export type TelegramFault = { kind: 'rate-limit'; retryAfter: number } | { kind: 'server-error' } | { kind: 'hang' };

export type TelegramStandIn = {
  /** TELEGRAM_API_URL. */
  url: string;
  /** The bot's token (TELEGRAM_BOT_TOKEN). */
  token: string;
  botUsername: string;
  botId: number;
  /** A message arrives from a chat (a private chat unless `title` names a group): an update for getUpdates. */
  sendFromChat(m: { chatId: number; text: string; title?: string; firstName?: string }): void;
  /** Messages the bot sent, oldest first. */
  sent(): TelegramSent[];
  /** Every call as received (method and parameters; never the token). */
  calls(): { method: string; params: Record<string, unknown> }[];
  /** Updates not yet confirmed by an offset past them. */
  pendingUpdates(): number;
  /** The user blocked the bot: sendMessage to this chat answers 403. */
  block(chatId: number): void;
  /** The next sendMessage calls answer these instead. */
  failNext(...faults: TelegramFault[]): void;
  stop(): Promise<void>;
};

type Update = { update_id: number; message: Record<string, unknown> };

const fail = (error_code: number, description: string, parameters?: Record<string, unknown>) => ({
  ok: false,
  error_code,
  description,
  ...(parameters ? { parameters } : {}),
});

export async function startTelegramStandIn(): Promise<TelegramStandIn> {
  const botId = 7_000_000_000 + Math.floor(Math.random() * 1_000_000);
  const token = `${botId}:${randomBytes(26).toString('base64url')}`;
  const botUsername = 'nodeharbor_test_bot';
  const chats = new Map<string, Record<string, unknown>>();
  const blocked = new Set<string>();
  const sentMessages: TelegramSent[] = [];
  const callLog: { method: string; params: Record<string, unknown> }[] = [];
  const faults: TelegramFault[] = [];
  let updates: Update[] = [];
  let nextUpdateId = 100_000;
  let nextMessageId = 1;
  const bot = { id: botId, is_bot: true, first_name: 'NodeHarbor', username: botUsername };

  const http = await startHttpStandIn((req, res) => {
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(req.url.pathname);
    if (!m) return json(res, 404, fail(404, 'Not Found'));
    if (m[1] !== token) return json(res, 401, fail(401, 'Unauthorized'));
    const method = m[2]!.toLowerCase();
    let params: Record<string, unknown> = Object.fromEntries(req.url.searchParams);
    const type = String(req.headers['content-type'] ?? '');
    if (req.body && type.startsWith('application/json')) {
      try {
        params = { ...params, ...(JSON.parse(req.body) as Record<string, unknown>) };
      } catch {
        return json(res, 400, fail(400, "Bad Request: can't parse JSON object"));
      }
    } else if (req.body && type.startsWith('application/x-www-form-urlencoded')) {
      params = { ...params, ...Object.fromEntries(new URLSearchParams(req.body)) };
    }
    callLog.push({ method, params });

    if (method === 'getme')
      return json(res, 200, { ok: true, result: { ...bot, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false } });
    if (method === 'getupdates') {
      const offset = params.offset === undefined ? undefined : Number(params.offset);
      if (offset !== undefined && offset > 0) updates = updates.filter((u) => u.update_id >= offset);
      if (offset !== undefined && offset < 0) updates = updates.slice(offset);
      const limit = Math.min(Math.max(Number(params.limit ?? 100) || 100, 1), 100);
      return json(res, 200, { ok: true, result: updates.slice(0, limit) });
    }
    if (method === 'sendmessage') {
      const fault = faults.shift();
      if (fault?.kind === 'hang') return;
      if (fault?.kind === 'rate-limit') {
        return json(res, 429, fail(429, `Too Many Requests: retry after ${fault.retryAfter}`, { retry_after: fault.retryAfter }));
      }
      if (fault?.kind === 'server-error') return json(res, 502, fail(502, 'Bad Gateway'));
      const chatId = params.chat_id === undefined ? '' : String(params.chat_id);
      const text = typeof params.text === 'string' ? params.text : '';
      if (!chatId) return json(res, 400, fail(400, 'Bad Request: chat_id is empty'));
      if (!text) return json(res, 400, fail(400, 'Bad Request: message text is empty'));
      if ([...text].length > 4096) return json(res, 400, fail(400, 'Bad Request: message is too long'));
      const chat = chats.get(chatId);
      if (!chat) return json(res, 400, fail(400, 'Bad Request: chat not found'));
      if (blocked.has(chatId)) return json(res, 403, fail(403, 'Forbidden: bot was blocked by the user'));
      sentMessages.push({ chatId, text, params });
      return json(res, 200, { ok: true, result: { message_id: nextMessageId++, from: bot, chat, date: Math.floor(Date.now() / 1000), text } });
    }
    return json(res, 404, fail(404, 'Not Found'));
  });

  return {
    url: http.url,
    token,
    botUsername,
    botId,
    sendFromChat({ chatId, text, title, firstName = 'Ada' }) {
      const chat = title ? { id: chatId, title, type: 'group' } : { id: chatId, first_name: firstName, type: 'private' };
      chats.set(String(chatId), chat);
      updates.push({
        update_id: nextUpdateId++,
        message: {
          message_id: nextMessageId++,
          from: { id: Math.abs(chatId), is_bot: false, first_name: firstName },
          chat,
          date: Math.floor(Date.now() / 1000),
          text,
        },
      });
    },
    sent: () => [...sentMessages],
    calls: () => [...callLog],
    pendingUpdates: () => updates.length,
    block: (chatId) => void blocked.add(String(chatId)),
    failNext: (...f) => void faults.push(...f),
    stop: http.stop,
  };
}
