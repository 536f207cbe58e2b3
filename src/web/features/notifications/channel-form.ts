import { CHANNEL_NAME_MAX, DISCORD_WEBHOOK_PATH, notificationMessages, type ChannelKind } from '@shared/notifications';

export type ChannelForm = { kind: ChannelKind; name: string; url: string };
export type ChannelFormErrors = { name?: string; url?: string };

function parsed(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * What the browser can check before the server does, in the server's words: the name's presence
 * and length, and the URL's form. Whether its address may be reached only the server can tell.
 */
export function channelFormErrors({ kind, name, url }: ChannelForm): ChannelFormErrors {
  const errors: ChannelFormErrors = {};
  const trimmed = name.trim();
  if (trimmed === '') errors.name = notificationMessages.nameRequired;
  else if (trimmed.length > CHANNEL_NAME_MAX) errors.name = notificationMessages.nameTooLong;
  const u = parsed(url.trim());
  // Discord's origin only the server knows (DISCORD_API_ORIGIN): the browser checks the rest.
  const discordForm = u && /^https?:$/.test(u.protocol) && !u.username && !u.password && !u.search && !u.hash && DISCORD_WEBHOOK_PATH.test(u.pathname);
  if (kind === 'discord' && !discordForm) errors.url = notificationMessages.badDiscordUrl;
  if (kind === 'webhook' && !(u && u.protocol === 'https:' && u.hostname !== '')) errors.url = notificationMessages.badWebhookUrl;
  return errors;
}

/** Which field a refusal of the server belongs to, so that it shows under that field; the others show above the form's buttons. */
export function refusalField(message: string): keyof ChannelFormErrors | undefined {
  const m = notificationMessages;
  if (message === m.nameRequired || message === m.nameTooLong) return 'name';
  if ([m.badDiscordUrl, m.badWebhookUrl, m.refusedAddress, m.unresolvable].includes(message as never)) return 'url';
  return undefined;
}

/** The threshold field: empty is none (null), else an amount of $0 to $10,000, to the cent. */
export function parseThreshold(text: string): { amount: number | null } | { error: string } {
  const t = text.trim();
  if (t === '') return { amount: null };
  if (!/^\d+(\.\d{1,2})?$/.test(t)) return { error: notificationMessages.badThreshold };
  const amount = Number(t);
  return amount <= 10_000 ? { amount } : { error: notificationMessages.badThreshold };
}
