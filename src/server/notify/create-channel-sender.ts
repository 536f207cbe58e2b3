import { notificationMessages } from '../../shared/notifications';
import { createOutboundClient, OutboundError, type Resolver } from '../outbound/outbound-client';
import type { ChannelSender } from './channel-sender';
import { discordOrigins, isDiscordWebhookUrl, sendDiscord } from './senders/discord';
import { fromRequestError } from './senders/results';
import { sendTelegram } from './senders/telegram';
import { sendWebhook } from './senders/webhook';
import { createTelegramBot, type TelegramBot } from './telegram-bot';

/**
 * What createChannelSender needs: `config.outbound` as loadConfig gives it (env.ts), and for tests a
 * resolver and a shorter deadline.
 */
export type ChannelSenderOptions = {
  /** OUTBOUND_ALLOW: hosts (`host` or `host:port`) reached although private, and over http; tests only. */
  allow: readonly string[];
  /** DISCORD_API_ORIGIN: Discord webhook URLs must start with `${origin}/api/webhooks/`. */
  discordApiOrigin: string;
  /** TELEGRAM_API_URL: where the Bot API is (https://api.telegram.org). */
  telegramApiUrl: string;
  /** TELEGRAM_BOT_TOKEN; without it there is no Telegram channel (`telegram` is undefined). */
  telegramBotToken: string | undefined;
  /** How host names resolve (default: the system's resolver, as a connection would). */
  resolve?: Resolver;
  /** One request's whole deadline (default 5 s). */
  timeoutMs?: number;
};

/**
 * The channels' protocols behind ChannelSender (decision 043): Discord's Execute Webhook, the
 * Telegram Bot API's sendMessage, and Standard Webhooks, every request through one SSRF-safe
 * outbound client. `send` never throws for what the other side or the network does; it answers a
 * SendResult that says whether another attempt may succeed. `telegram` is the same bot for linking
 * chats (getMe, getUpdates), or undefined without TELEGRAM_BOT_TOKEN.
 */
export function createChannelSender(opts: ChannelSenderOptions): ChannelSender & { telegram: TelegramBot | undefined } {
  const client = createOutboundClient({ allow: opts.allow, resolve: opts.resolve, timeoutMs: opts.timeoutMs });
  const origins = discordOrigins(opts.discordApiOrigin);
  const telegram = opts.telegramBotToken ? createTelegramBot({ token: opts.telegramBotToken, apiUrl: opts.telegramApiUrl, client }) : undefined;

  return {
    telegram,
    async send(target, message) {
      switch (target.kind) {
        case 'discord':
          // Checked again at send time: the address a URL resolves to may have changed since it was saved.
          if (!isDiscordWebhookUrl(target.url, origins)) return fromRequestError(new OutboundError('form', 'not a Discord webhook URL'));
          return sendDiscord(client, target.url, message);
        case 'telegram':
          return sendTelegram(telegram, target.chatId, message);
        case 'webhook':
          return sendWebhook(client, target, message);
      }
    },
    async checkUrl(kind, url) {
      if (kind === 'discord' && !isDiscordWebhookUrl(url, origins)) return notificationMessages.badDiscordUrl;
      try {
        await client.check(url);
        return undefined;
      } catch (e) {
        if (!(e instanceof OutboundError)) throw e;
        if (e.reason === 'refused') return notificationMessages.refusedAddress;
        if (e.reason === 'form') return kind === 'discord' ? notificationMessages.badDiscordUrl : notificationMessages.badWebhookUrl;
        return notificationMessages.unresolvable;
      }
    },
  };
}
