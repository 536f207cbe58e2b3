import { DISCORD_WEBHOOK_PATH, deliveryErrors } from '../../../shared/notifications';
import type { OutboundClient } from '../../outbound/outbound-client';
import type { OutboundMessage, SendResult } from '../channel-sender';
import { cutText, failed, fromRequestError, isRedirect, jsonOf, retryAfterSeconds } from './results';

/** Discord's limit on a message's content (Execute Webhook: "up to 2000 characters"). */
const CONTENT_LIMIT = 2000;

/**
 * The origins a Discord webhook URL may have: DISCORD_API_ORIGIN, and discordapp.com, its older
 * name that old webhook URLs still carry, when that is Discord itself.
 */
export function discordOrigins(discordApiOrigin: string): string[] {
  const origin = new URL(discordApiOrigin).origin;
  return origin === 'https://discord.com' ? [origin, 'https://discordapp.com'] : [origin];
}

/** Whether `raw` is a Discord channel webhook URL on one of `origins`, with nothing more (no query, credentials or fragment). */
export function isDiscordWebhookUrl(raw: string, origins: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return origins.includes(url.origin) && !url.username && !url.password && !url.search && !url.hash && DISCORD_WEBHOOK_PATH.test(url.pathname);
}

/** Discord's markdown and mention characters, escaped so a service's name shows as written. */
const escapeMarkdown = (s: string) => s.replace(/[\\`*_~|>[\]()#<@]/g, '\\$&');

/** The message's content: its title in bold, its text and its link, within Discord's limit. */
export function discordContent(message: OutboundMessage): string {
  const head = `**${escapeMarkdown(message.title)}**\n`;
  // <…> keeps Discord from adding a preview of our own page.
  const tail = message.url ? `\n<${message.url}>` : '';
  const body = cutText(escapeMarkdown(message.text), Math.max(1, CONTENT_LIMIT - head.length - tail.length));
  return cutText(`${head}${body}${tail}`, CONTENT_LIMIT);
}

/**
 * Executes a channel webhook (POST …/webhooks/<id>/<token>?wait=true: Discord answers only once the
 * message is saved) with no mention parsed, so no name can ping @everyone or a role.
 */
export async function sendDiscord(client: OutboundClient, webhookUrl: string, message: OutboundMessage): Promise<SendResult> {
  let res;
  try {
    res = await client.request(`${webhookUrl}?wait=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: discordContent(message), allowed_mentions: { parse: [] } }),
    });
  } catch (e) {
    return fromRequestError(e);
  }
  const { status } = res;
  if (status === 200 || status === 204) return { ok: true, status };
  if (status === 429) {
    const body = jsonOf(res.body, res.truncated) as { retry_after?: unknown } | undefined;
    return failed(deliveryErrors.rateLimited, status, true, retryAfterSeconds(body?.retry_after, res.headers));
  }
  // 401 and 404: the webhook was deleted, or its token changed; a new URL is needed.
  if (status === 401 || status === 404) return failed(deliveryErrors.discordGone, status, false);
  if (isRedirect(status)) return failed(deliveryErrors.redirect, status, false);
  return failed(deliveryErrors.status(status), status, status >= 500 || status === 408);
}
