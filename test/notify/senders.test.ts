import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryErrors, NOTIFICATION_VERSION, notificationMessages as m } from '../../src/shared/notifications';
import { createChannelSender, type ChannelSenderOptions } from '../../src/server/notify/create-channel-sender';
import { discordContent, discordOrigins, isDiscordWebhookUrl } from '../../src/server/notify/senders/discord';
import { TelegramApiError } from '../../src/server/notify/telegram-bot';
import { startDiscordStandIn, type DiscordStandIn } from '../helpers/discord-stand-in';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { newWebhookSecret, nodeDownMessage } from './fixtures';

let discord: DiscordStandIn;
let telegram: TelegramStandIn;
let receiver: WebhookReceiver;
let options: ChannelSenderOptions;

beforeAll(async () => {
  [discord, telegram, receiver] = await Promise.all([startDiscordStandIn(), startTelegramStandIn(), startWebhookReceiver()]);
  options = {
    allow: [discord.url, telegram.url, receiver.url].map((u) => new URL(u).host),
    discordApiOrigin: discord.url,
    telegramApiUrl: telegram.url,
    telegramBotToken: telegram.token,
    timeoutMs: 1_000,
  };
});
afterAll(async () => {
  await Promise.all([discord?.stop(), telegram?.stop(), receiver?.stop()]);
});

describe('Discord', () => {
  it('posts the message to the channel webhook, with no mention parsed, and waits for Discord to save it', async () => {
    const url = discord.webhookUrl();
    const sender = createChannelSender(options);
    expect(await sender.checkUrl('discord', url)).toBeUndefined();
    const message = nodeDownMessage({ title: 'Node down: @everyone', text: 'Ping <@&123> and **bold** [link](https://evil.example)' });
    expect(await sender.send({ kind: 'discord', url }, message)).toEqual({ ok: true, status: 200 });
    const [posted] = discord.received();
    expect(posted).toMatchObject({ wait: true, body: { allowed_mentions: { parse: [] } } });
    expect(posted!.body.content).toBe(
      '**Node down: \\@everyone**\nPing \\<\\@&123\\> and \\*\\*bold\\*\\* \\[link\\]\\(https://evil.example\\)\n<https://nodeharbor.test/dashboard/services/8c5b>',
    );
  });

  it("keeps a long message within Discord's 2000 characters, with its link", async () => {
    const content = discordContent(nodeDownMessage({ text: 'x'.repeat(5000) }));
    expect(content.length).toBeLessThanOrEqual(2000);
    expect(content.endsWith('…\n<https://nodeharbor.test/dashboard/services/8c5b>')).toBe(true);
    const url = discord.webhookUrl();
    expect(await createChannelSender(options).send({ kind: 'discord', url }, nodeDownMessage({ text: 'x'.repeat(5000) }))).toEqual({ ok: true, status: 200 });
  });

  it('retries after a rate limit as long as Discord says, and after its own failures', async () => {
    const url = discord.webhookUrl();
    const sender = createChannelSender(options);
    discord.failNext({ kind: 'rate-limit', retryAfter: 2.5 }, { kind: 'server-error' }, { kind: 'hang' });
    expect(await sender.send({ kind: 'discord', url }, nodeDownMessage())).toEqual({
      ok: false,
      status: 429,
      error: deliveryErrors.rateLimited,
      retry: true,
      retryAfterSeconds: 3,
    });
    expect(await sender.send({ kind: 'discord', url }, nodeDownMessage())).toEqual({ ok: false, status: 500, error: deliveryErrors.status(500), retry: true });
    expect(await sender.send({ kind: 'discord', url }, nodeDownMessage())).toEqual({ ok: false, status: null, error: deliveryErrors.timeout, retry: true });
    expect(await sender.send({ kind: 'discord', url }, nodeDownMessage())).toEqual({ ok: true, status: 200 });
  });

  it('does not retry a webhook that was deleted (404) or whose token is wrong (401), and names no token', async () => {
    const url = discord.webhookUrl();
    const sender = createChannelSender(options);
    const wrongToken = url.replace(/\/[^/]+$/, `/${'A'.repeat(68)}`);
    const wrong = await sender.send({ kind: 'discord', url: wrongToken }, nodeDownMessage());
    expect(wrong).toEqual({ ok: false, status: 401, error: deliveryErrors.discordGone, retry: false });
    discord.deleteWebhook(url);
    const gone = await sender.send({ kind: 'discord', url }, nodeDownMessage());
    expect(gone).toEqual({ ok: false, status: 404, error: deliveryErrors.discordGone, retry: false });
    const token = url.split('/').at(-1)!;
    expect(JSON.stringify([wrong, gone])).not.toContain(token);
  });

  it('takes only a Discord webhook URL, on Discord and nowhere else', async () => {
    const sender = createChannelSender(options);
    const url = discord.webhookUrl();
    for (const bad of [
      `${receiver.url}/api/webhooks/123456789012345678/${'a'.repeat(68)}`,
      `${url}?thread_id=1`,
      `${discord.url}/api/channels/123456789012345678/messages`,
      `${discord.url}/api/webhooks/123/${'a'.repeat(68)}`,
      'https://discord.com.evil.example/api/webhooks/123456789012345678/token',
      'not a url',
    ]) {
      expect(await sender.checkUrl('discord', bad), bad).toBe(m.badDiscordUrl);
    }
    expect(await sender.send({ kind: 'discord', url: `${receiver.url}/api/webhooks/1/2` }, nodeDownMessage())).toEqual({
      ok: false,
      status: null,
      error: deliveryErrors.badUrl,
      retry: false,
    });
    // In production: discord.com and its older name, over https only.
    const origins = discordOrigins('https://discord.com');
    const token = 'a'.repeat(68);
    expect(isDiscordWebhookUrl(`https://discord.com/api/webhooks/123456789012345678/${token}`, origins)).toBe(true);
    expect(isDiscordWebhookUrl(`https://discordapp.com/api/webhooks/123456789012345678/${token}`, origins)).toBe(true);
    expect(isDiscordWebhookUrl(`https://discord.com/api/v10/webhooks/123456789012345678/${token}`, origins)).toBe(true);
    expect(isDiscordWebhookUrl(`http://discord.com/api/webhooks/123456789012345678/${token}`, origins)).toBe(false);
    expect(isDiscordWebhookUrl(`https://user:pw@discord.com/api/webhooks/123456789012345678/${token}`, origins)).toBe(false);
  });
});

describe('Telegram', () => {
  it('reads the bot and the chats that wrote to it, confirming updates by their offset', async () => {
    const bot = createChannelSender(options).telegram!;
    expect(await bot.getMe()).toMatchObject({ is_bot: true, username: telegram.botUsername });
    telegram.sendFromChat({ chatId: 501, text: '/start ABCD1234' });
    telegram.sendFromChat({ chatId: -502, text: '/start EFGH5678', title: 'Ops chat' });
    const updates = await bot.getUpdates();
    expect(updates.map((u) => [u.message?.chat.id, u.message?.text])).toEqual([
      [501, '/start ABCD1234'],
      [-502, '/start EFGH5678'],
    ]);
    expect(updates[1]!.message!.chat).toMatchObject({ type: 'group', title: 'Ops chat' });
    expect(await bot.getUpdates(updates[1]!.update_id + 1)).toEqual([]);
    expect(telegram.pendingUpdates()).toBe(0);
    expect(telegram.calls().at(-1)).toEqual({
      method: 'getupdates',
      params: { offset: updates[1]!.update_id + 1, limit: 100, timeout: 0, allowed_updates: ['message'] },
    });
  });

  it('sends plain text to a linked chat', async () => {
    telegram.sendFromChat({ chatId: 601, text: '/start' });
    const message = nodeDownMessage({ title: 'Node down: <b>my-node</b>', text: '*not bold* _nor italic_' });
    expect(await createChannelSender(options).send({ kind: 'telegram', chatId: '601' }, message)).toEqual({ ok: true, status: 200 });
    const sent = telegram.sent().at(-1)!;
    expect(sent.chatId).toBe('601');
    expect(sent.text).toBe('Node down: <b>my-node</b>\n\n*not bold* _nor italic_\n\nhttps://nodeharbor.test/dashboard/services/8c5b');
    expect(sent.params).not.toHaveProperty('parse_mode');
  });

  it('keeps a long message within 4096 characters', async () => {
    telegram.sendFromChat({ chatId: 602, text: '/start' });
    expect(await createChannelSender(options).send({ kind: 'telegram', chatId: '602' }, nodeDownMessage({ text: 'y'.repeat(9000) }))).toEqual({
      ok: true,
      status: 200,
    });
    expect(telegram.sent().at(-1)!.text.length).toBe(4096);
    // Cut between characters, never through one written as a surrogate pair.
    await createChannelSender(options).send({ kind: 'telegram', chatId: '602' }, nodeDownMessage({ text: '😀'.repeat(3000) }));
    const text = telegram.sent().at(-1)!.text;
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('retries flood control after retry_after and its own failures; not a blocked bot or an unknown chat', async () => {
    telegram.sendFromChat({ chatId: 701, text: '/start' });
    const sender = createChannelSender(options);
    telegram.failNext({ kind: 'rate-limit', retryAfter: 7 }, { kind: 'server-error' });
    expect(await sender.send({ kind: 'telegram', chatId: '701' }, nodeDownMessage())).toEqual({
      ok: false,
      status: 429,
      error: deliveryErrors.rateLimited,
      retry: true,
      retryAfterSeconds: 7,
    });
    expect(await sender.send({ kind: 'telegram', chatId: '701' }, nodeDownMessage())).toEqual({
      ok: false,
      status: 502,
      error: deliveryErrors.status(502),
      retry: true,
    });
    telegram.block(701);
    expect(await sender.send({ kind: 'telegram', chatId: '701' }, nodeDownMessage())).toEqual({
      ok: false,
      status: 403,
      error: deliveryErrors.telegramBlocked,
      retry: false,
    });
    expect(await sender.send({ kind: 'telegram', chatId: '999999' }, nodeDownMessage())).toEqual({
      ok: false,
      status: 400,
      error: deliveryErrors.telegramChatNotFound,
      retry: false,
    });
  });

  it('never shows the bot token: a refused token, a hang, an unreachable API', async () => {
    const wrongToken = `${telegram.botId}:${'Z'.repeat(35)}`;
    const wrong = createChannelSender({ ...options, telegramBotToken: wrongToken });
    const error = await wrong.telegram!.getMe().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TelegramApiError);
    expect(error).toMatchObject({ errorCode: 401, description: 'Unauthorized' });
    const result = await wrong.send({ kind: 'telegram', chatId: '501' }, nodeDownMessage());
    expect(result).toEqual({ ok: false, status: 401, error: deliveryErrors.telegramUnavailable, retry: true });

    telegram.sendFromChat({ chatId: 801, text: '/start' });
    telegram.failNext({ kind: 'hang' });
    const sender = createChannelSender(options);
    const hung = await sender.telegram!.sendMessage('801', 'hello').catch((e: unknown) => e);
    const unreachable = await createChannelSender({ ...options, telegramApiUrl: 'http://127.0.0.1:9' })
      .telegram!.getMe()
      .catch((e: unknown) => e);
    for (const text of [String(error), String(hung), String(unreachable), JSON.stringify(result)]) {
      expect(text).not.toContain(wrongToken.split(':')[1]);
      expect(text).not.toContain(telegram.token.split(':')[1]);
    }
    expect(String(hung)).toContain('did not answer');
  });

  it('has no Telegram channel without a bot token', async () => {
    const sender = createChannelSender({ ...options, telegramBotToken: undefined });
    expect(sender.telegram).toBeUndefined();
    expect(await sender.send({ kind: 'telegram', chatId: '501' }, nodeDownMessage())).toEqual({
      ok: false,
      status: null,
      error: deliveryErrors.telegramUnavailable,
      retry: true,
    });
  });
});

describe('signed webhooks', () => {
  it("delivers JSON that standardwebhooks' own verifier accepts, with the same id on a redelivery", async () => {
    const secret = newWebhookSecret();
    receiver.useSecret(secret);
    const sender = createChannelSender(options);
    const url = `${receiver.url}/hooks/nodeharbor?source=test`;
    expect(await sender.checkUrl('webhook', url)).toBeUndefined();
    const message = nodeDownMessage();
    const before = receiver.deliveries().length;
    expect(await sender.send({ kind: 'webhook', url, secret }, message)).toEqual({ ok: true, status: 204 });
    expect(await sender.send({ kind: 'webhook', url, secret }, message)).toEqual({ ok: true, status: 204 });
    const [first, second] = receiver.deliveries().slice(before);
    expect(first!.verified && second!.verified).toBe(true);
    expect(first!.path).toBe('/hooks/nodeharbor?source=test');
    expect(first!.headers['webhook-id']).toBe(message.id);
    expect(second!.headers['webhook-id']).toBe(message.id);
    expect(first!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(first!.payload).toEqual({
      type: 'node_down',
      version: NOTIFICATION_VERSION,
      timestamp: '2026-11-28T20:00:00.000Z',
      data: { ...message.data, title: message.title, text: message.text, url: message.url },
    });
    expect(JSON.stringify(receiver.deliveries())).not.toContain(secret);
  });

  it('is refused by a receiver holding another secret, and that is not retried', async () => {
    receiver.useSecret(newWebhookSecret());
    const result = await createChannelSender(options).send({ kind: 'webhook', url: `${receiver.url}/hook`, secret: newWebhookSecret() }, nodeDownMessage());
    expect(result).toEqual({ ok: false, status: 401, error: deliveryErrors.status(401), retry: false });
  });

  it('retries 5xx, 408 and 429 (after Retry-After), and stops at 410 Gone and other 4xx', async () => {
    const secret = newWebhookSecret();
    receiver.useSecret(secret);
    const sender = createChannelSender(options);
    const target = { kind: 'webhook' as const, url: `${receiver.url}/hook`, secret };
    receiver.answerNext(
      { status: 200 },
      { status: 500 },
      { status: 503, headers: { 'retry-after': '30' } },
      { status: 408 },
      { status: 429, headers: { 'retry-after': '12' } },
      { status: 410 },
      { status: 400 },
      { status: 404 },
    );
    const results = [];
    for (let i = 0; i < 8; i++) results.push(await sender.send(target, nodeDownMessage()));
    expect(results).toEqual([
      { ok: true, status: 200 },
      { ok: false, status: 500, error: deliveryErrors.status(500), retry: true },
      { ok: false, status: 503, error: deliveryErrors.status(503), retry: true, retryAfterSeconds: 30 },
      { ok: false, status: 408, error: deliveryErrors.status(408), retry: true },
      { ok: false, status: 429, error: deliveryErrors.rateLimited, retry: true, retryAfterSeconds: 12 },
      { ok: false, status: 410, error: deliveryErrors.webhookGone, retry: false },
      { ok: false, status: 400, error: deliveryErrors.status(400), retry: false },
      { ok: false, status: 404, error: deliveryErrors.status(404), retry: false },
    ]);
  });

  it('signs only ids without a full stop, with a whsec_ secret', async () => {
    const sender = createChannelSender(options);
    const target = { kind: 'webhook' as const, url: `${receiver.url}/hook`, secret: newWebhookSecret() };
    await expect(sender.send(target, nodeDownMessage({ id: 'msg_1.1700000000' }))).rejects.toThrow('cannot be signed');
    await expect(sender.send({ ...target, secret: 'whsec_' }, nodeDownMessage())).rejects.toThrow('not a whsec_ secret');
  });
});
