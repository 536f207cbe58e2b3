/**
 * Notification channels and preferences (issue 37, items 1 and 2; migration 0053): the event types,
 * the channel kinds, their limits and the words the settings, the deliveries and the database's
 * refusals use, once. The SQL functions raise `notificationMessages` word for word.
 */

import { messages } from './validation';

export const NOTIFICATION_EVENTS = [
  'node_down',
  'node_up',
  'install_failed',
  'suspension_warning',
  'termination_warning',
  'low_balance',
  'payment_received',
  'security_notice',
  'statement_ready',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export const NOTIFICATION_EVENT_LABELS: Record<NotificationEvent, string> = {
  node_down: 'Node down',
  node_up: 'Node back online',
  install_failed: 'Installation failed',
  suspension_warning: 'Suspension warnings',
  termination_warning: 'Termination warnings',
  low_balance: 'Low balance',
  payment_received: 'Payment received',
  security_notice: 'Security notices',
  statement_ready: 'Monthly statements',
};

/** Events about one service: these obey the service's own mute, the others do not name a service. */
export const SERVICE_EVENTS: readonly NotificationEvent[] = ['node_down', 'node_up', 'install_failed', 'suspension_warning', 'termination_warning'];

/** Security notices always go by e-mail as well; that cannot be turned off. */
export const ALWAYS_EMAILED: readonly NotificationEvent[] = ['security_notice'];

export const CHANNEL_KINDS = ['discord', 'telegram', 'webhook'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** 'email' is the account's own address: a channel every customer has and none can remove. */
export type ChannelRef = 'email' | string;

export const CHANNEL_KIND_LABELS: Record<ChannelKind, string> = {
  discord: 'Discord',
  telegram: 'Telegram',
  webhook: 'Webhook',
};

/** Channels of one customer, all kinds together. */
export const MAX_CHANNELS = 10;
/** Signed webhook endpoints of one customer (within MAX_CHANNELS). */
export const MAX_WEBHOOKS = 5;
export const CHANNEL_NAME_MAX = 60;
/** Deliveries that failed for good, one after another, before a channel is disabled. */
export const FAILURES_BEFORE_DISABLED = 3;
/** Attempts kept per channel in its delivery log. */
export const DELIVERY_LOG_SIZE = 50;
/** "Send a test" per channel within any hour. */
export const TESTS_PER_HOUR = 5;
/** How long the one-time Telegram link code stays valid. */
export const TELEGRAM_CODE_MINUTES = 15;
/** The payload version every webhook and message carries. */
export const NOTIFICATION_VERSION = 1;

/**
 * A Discord channel webhook URL's path (/api[/vN]/webhooks/<id>/<token>, as "Copy Webhook URL" gives
 * it), for the browser's check before the server's, which also knows where Discord is.
 */
export const DISCORD_WEBHOOK_PATH = /^\/api(?:\/v\d{1,2})?\/webhooks\/\d{15,22}\/[A-Za-z0-9_-]{20,120}$/;

export const CHANNEL_STATES = ['pending', 'active', 'disabled'] as const;
export type ChannelState = (typeof CHANNEL_STATES)[number];

export const CHANNEL_STATE_LABELS: Record<ChannelState, string> = {
  pending: 'Waiting for the link',
  active: 'Active',
  disabled: 'Disabled',
};

export const notificationMessages = {
  badKind: 'The channel must be Discord, Telegram or a webhook',
  nameRequired: 'Give the channel a name',
  nameTooLong: `The name can be at most ${CHANNEL_NAME_MAX} characters`,
  tooManyChannels: `You can add at most ${MAX_CHANNELS} channels`,
  tooManyWebhooks: `You can add at most ${MAX_WEBHOOKS} webhooks`,
  notFound: 'Channel not found',
  badEvent: 'Unknown notification type',
  securityAlwaysEmailed: 'Security notices always go by e-mail',
  badDiscordUrl: 'Enter a Discord webhook URL (https://discord.com/api/webhooks/…)',
  badWebhookUrl: 'Enter an https:// URL',
  refusedAddress: 'This address is not allowed: it points to a private or local network',
  unresolvable: 'This address could not be found',
  telegramOff: 'Telegram is not available on this site',
  badThreshold: 'Enter an amount between $0 and $10,000, or leave it empty',
  tooManyTests: `At most ${TESTS_PER_HOUR} tests an hour per channel: try again later`,
  notActive: 'This channel is not active',
  serviceNotFound: messages.serviceNotFound,
  tooManyAdditions: 'Too many channels added within an hour: try again later',
} as const;

/** "Send a test": what the channel receives. */
export const testNotification = {
  title: 'Test notification from NodeHarbor',
  text: 'This is a test. Your NodeHarbor notifications will arrive here.',
} as const;

/** What the bot answers a chat that writes to it (poll-telegram). */
export const telegramReplies = {
  linked: (name: string) => `Linked: this chat now gets the NodeHarbor notifications of your channel “${name}”.`,
  badCode: 'This code is not valid or has expired. Make a new one in NodeHarbor, Settings › Notifications.',
  help: 'To get NodeHarbor notifications here, send the code shown in Settings › Notifications.',
} as const;

/**
 * Why one delivery attempt failed, as a channel's delivery log shows it (`error`; the senders in
 * src/server/notify/senders write them). No URL, token or secret is ever part of one.
 */
export const deliveryErrors = {
  refused: notificationMessages.refusedAddress,
  unresolvable: notificationMessages.unresolvable,
  badUrl: 'The saved address is not valid',
  timeout: 'No answer in time',
  network: 'The connection failed',
  redirect: 'Answered with a redirect, which is not followed: save the final address',
  rateLimited: 'Rate limited: the delivery will be retried',
  status: (code: number) => `Answered with HTTP ${code}`,
  discordGone: 'Discord says this webhook no longer exists',
  telegramBlocked: 'The bot was blocked or removed from the chat',
  telegramChatNotFound: 'Telegram does not know this chat any more',
  telegramUnavailable: 'Telegram is not available on this site right now',
  webhookGone: 'The endpoint answered 410 Gone: it wants no more deliveries',
} as const;
