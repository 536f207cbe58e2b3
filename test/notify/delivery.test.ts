import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_LOG_SIZE, FAILURES_BEFORE_DISABLED, TESTS_PER_HOUR, notificationMessages, testNotification } from '../../src/shared/notifications';
import { addCredits } from '../../src/server/domain/credits';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { pollTelegram } from '../../src/server/jobs/tasks/poll-telegram';
import { notify } from '../../src/server/notify/notify';
import { simulateOutage } from '../../src/server/provisioning/drivers/simulated';
import { installNode } from '../../src/server/provisioning/install-node';
import { sweepNodes } from '../../src/server/provisioning/node-monitor';
import { startDiscordStandIn, type DiscordStandIn } from '../helpers/discord-stand-in';
import { invokeFunction } from '../helpers/functions';
import { runDueJobs } from '../helpers/jobs';
import { startTestServer, type TestServer } from '../helpers/server';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in';
import { createTestUser, LICENCE_KEY, MASTER_NODE, type TestUser } from '../helpers/users';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

// Deliveries (issue 37): the event sites' fan-out through the outbox and the job queue to Discord,
// Telegram and signed webhooks, each a local stand-in that speaks the real protocol.

let s: TestServer;
let deps: JobDeps;
let discord: DiscordStandIn;
let telegram: TelegramStandIn;
let receiver: WebhookReceiver;
let nextChat = 5_000_000;

const hostOf = (url: string) => new URL(url).host;
const sql = async <T>(text: string, params: unknown[] = []) => (await s.deps.db.query<T>(text, params)).rows;

beforeAll(async () => {
  [discord, telegram, receiver] = await Promise.all([startDiscordStandIn(), startTelegramStandIn(), startWebhookReceiver()]);
  s = await startTestServer({
    RATE_LIMITS_ENABLED: 'false',
    PROVISION_INSTALL_SECONDS: '0',
    PROVISION_DELETE_SECONDS: '0',
    INSTALL_SETTLE_SECONDS: '0',
    DISCORD_API_ORIGIN: discord.url,
    TELEGRAM_API_URL: telegram.url,
    TELEGRAM_BOT_TOKEN: telegram.token,
    OUTBOUND_ALLOW: [discord.url, telegram.url, receiver.url].map(hostOf).join(','),
  });
  deps = await createJobDeps(s.deps);
});
afterAll(async () => {
  await s?.stop();
  await Promise.all([discord?.stop(), telegram?.stop(), receiver?.stop()]);
});

/** Runs the queued deliveries (and low-balance notices) with a real worker; the services' own jobs were done by hand. */
async function deliver(timeoutMs = 30_000) {
  await sql(`update nodeharbor.jobs set status = 'done' where status = 'pending' and task not in ('deliver-notification', 'notify-low-balance')`);
  await runDueJobs(s, timeoutMs);
}

type Channels = { discordUrl: string; discordId: string; telegramChat: number; telegramId: string; webhookPath: string; webhookId: string };

/** A customer with one channel of each kind, the Telegram one linked through the bot. */
async function customerWithChannels(credits = 100): Promise<{ user: TestUser } & Channels> {
  const user = await createTestUser(s, { credits });
  const discordUrl = discord.webhookUrl();
  const d = await invokeFunction(user.client, 'notification-channel', { kind: 'discord', name: 'Discord', url: discordUrl });
  const webhookPath = `/hooks/${user.id}`;
  const w = await invokeFunction(user.client, 'notification-channel', { kind: 'webhook', name: 'Hook', url: `${receiver.url}${webhookPath}` });
  receiver.useSecret(String(w.body.secret), webhookPath);
  const t = await invokeFunction(user.client, 'notification-channel', { kind: 'telegram', name: 'Phone' });
  const telegramChat = nextChat++;
  telegram.sendFromChat({ chatId: telegramChat, text: `/start ${String(t.body.code)}` });
  await pollTelegram.run({}, deps);
  const { data } = await user.client.from('my_notification_channels').select('state').eq('id', t.body.id).single();
  expect(data!.state).toBe('active');
  return { user, discordUrl, discordId: String(d.body.id), telegramChat, telegramId: String(t.body.id), webhookPath, webhookId: String(w.body.id) };
}

const webhookId = (url: string) => url.split('/').at(-2)!;
const discordGot = (c: Channels) => discord.received().filter((e) => e.webhookId === webhookId(c.discordUrl));
const telegramGot = (c: Channels) => telegram.sent().filter((m) => m.chatId === String(c.telegramChat) && !m.text.startsWith('Linked'));
const webhookGot = (c: Channels) => receiver.deliveries().filter((d) => d.path === c.webhookPath && d.verified);
const mails = (to: string, like: string) =>
  sql<{ subject: string }>(`select subject from nodeharbor.outbox where to_address = $1 and subject like $2`, [to, like]);

async function activeService(user: TestUser, name: string): Promise<string> {
  const { data, error } = await user.client.rpc('create_service_securely', {
    p_name: name,
    p_description: null,
    p_api_key: LICENCE_KEY,
    p_product_id: MASTER_NODE,
  });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await installNode(deps, id);
  return id;
}

/** The node is down for longer than the alert delay, and the monitor sweeps twice (a retried sweep). */
async function nodeGoesDown(id: string) {
  await sweepNodes(deps);
  await simulateOutage(s.deps.db, id, 30);
  await sweepNodes(deps);
  await sql(`update private.node_status set down_since = now() - interval '11 minutes' where service_id = $1`, [id]);
  await sweepNodes(deps);
  await sweepNodes(deps);
}

describe('a node going down', () => {
  it('reaches Discord, Telegram and a signed webhook once each, and the e-mail once', async () => {
    const c = await customerWithChannels();
    const id = await activeService(c.user, 'fan-out');
    await nodeGoesDown(id);
    await deliver();
    await sweepNodes(deps);
    await deliver();

    expect(discordGot(c)).toHaveLength(1);
    expect(JSON.stringify(discordGot(c)[0]!.body)).toContain('fan-out');
    expect(telegramGot(c)).toHaveLength(1);
    expect(telegramGot(c)[0]!.text).toContain('fan-out');
    const hooks = webhookGot(c);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.payload).toMatchObject({ type: 'node_down', data: { serviceId: id, serviceName: 'fan-out' } });
    expect(await mails(c.user.email, 'Your node fan-out is offline')).toHaveLength(1);
    // Each channel's log shows the attempt, and the owner reads only their own.
    const { data: log } = await c.user.client.from('my_notification_attempts').select('channel_id, event, ok, status_code');
    expect(log).toHaveLength(3);
    expect(log!.every((a) => a.ok && a.event === 'node_down')).toBe(true);
    await simulateOutage(s.deps.db, id, 0);
  });

  it("obeys the customer's preferences per channel and for e-mail", async () => {
    const c = await customerWithChannels();
    const id = await activeService(c.user, 'prefs');
    for (const channel of ['email', c.discordId]) {
      expect((await c.user.client.rpc('set_notification_preference', { p_channel: channel, p_event: 'node_down', p_enabled: false })).error).toBeNull();
    }
    await nodeGoesDown(id);
    await deliver();
    expect(discordGot(c)).toHaveLength(0);
    expect(telegramGot(c)).toHaveLength(1);
    expect(webhookGot(c)).toHaveLength(1);
    expect(await mails(c.user.email, 'Your node prefs is offline')).toEqual([]);
    await simulateOutage(s.deps.db, id, 0);
  });

  it('sends nothing for a muted service, and still does for the owner’s other service', async () => {
    const c = await customerWithChannels();
    const muted = await activeService(c.user, 'muted');
    for (const channel of ['email', c.discordId, c.telegramId, c.webhookId]) {
      expect((await c.user.client.rpc('set_service_notification', { p_service_id: muted, p_channel: channel, p_enabled: false })).error).toBeNull();
    }
    await nodeGoesDown(muted);
    await deliver();
    expect([discordGot(c), telegramGot(c), webhookGot(c)].map((x) => x.length)).toEqual([0, 0, 0]);
    expect(await mails(c.user.email, 'Your node muted is offline')).toEqual([]);
    expect(await sql('select 1 from private.notification_deliveries where user_id = $1', [c.user.id])).toEqual([]);
    const loud = await activeService(c.user, 'loud');
    await nodeGoesDown(loud);
    await deliver();
    expect([discordGot(c), telegramGot(c), webhookGot(c)].map((x) => x.length)).toEqual([1, 1, 1]);
    expect(JSON.stringify(discordGot(c)[0]!.body)).toContain('loud');
    for (const id of [muted, loud]) await simulateOutage(s.deps.db, id, 0);
  });
});

describe('retries and failures', () => {
  it('retries a 5xx and a rate limit, then delivers once, logging each attempt', async () => {
    const c = await customerWithChannels();
    discord.failNext({ kind: 'server-error' }, { kind: 'rate-limit', retryAfter: 1 });
    const n = await s.deps.db.transaction((tx) =>
      notify(tx, deps, {
        userId: c.user.id,
        event: 'payment_received',
        key: `retry:${c.user.id}`,
        message: { title: 'Payment received', text: '$10', data: {} },
      }),
    );
    expect(n).toBe(3);
    await deliver();
    expect(discordGot(c)).toHaveLength(1);
    const { data: log } = await c.user.client.from('my_notification_attempts').select('ok, status_code, error').eq('channel_id', c.discordId).order('id');
    expect(log).toEqual([
      { ok: false, status_code: 500, error: expect.any(String) },
      { ok: false, status_code: 429, error: expect.any(String) },
      { ok: true, status_code: expect.any(Number), error: null },
    ]);
    expect((await c.user.client.from('my_notification_channels').select('failures').eq('id', c.discordId).single()).data).toEqual({ failures: 0 });
  });

  it(`disables a channel after ${FAILURES_BEFORE_DISABLED} failures in a row and mails its owner; enabling it resets the count`, async () => {
    const c = await customerWithChannels();
    discord.deleteWebhook(c.discordUrl);
    for (let i = 0; i < FAILURES_BEFORE_DISABLED; i++) {
      await s.deps.db.transaction((tx) =>
        notify(tx, deps, { userId: c.user.id, event: 'payment_received', key: `gone:${c.user.id}:${i}`, message: { title: 'Payment', text: 'x', data: {} } }),
      );
      await deliver();
    }
    const { data } = await c.user.client.from('my_notification_channels').select('state, failures, disabled_reason').eq('id', c.discordId).single();
    expect(data).toMatchObject({ state: 'disabled', failures: FAILURES_BEFORE_DISABLED });
    expect(data!.disabled_reason).toBeTruthy();
    const mailed = await mails(c.user.email, '%“Discord” was disabled');
    expect(mailed).toHaveLength(1);
    // Disabled: the next event does not try it.
    const before = discord.attempts().length;
    await s.deps.db.transaction((tx) =>
      notify(tx, deps, { userId: c.user.id, event: 'payment_received', key: `gone:${c.user.id}:after`, message: { title: 'Payment', text: 'x', data: {} } }),
    );
    await deliver();
    expect(discord.attempts().length).toBe(before);
    expect(await invokeFunction(c.user.client, 'notification-test', { channelId: c.discordId })).toMatchObject({
      status: 409,
      body: { error: notificationMessages.notActive },
    });
    expect((await c.user.client.rpc('enable_notification_channel', { p_channel_id: c.discordId })).error).toBeNull();
    expect((await c.user.client.from('my_notification_channels').select('state, failures, disabled_reason').eq('id', c.discordId).single()).data).toEqual({
      state: 'active',
      failures: 0,
      disabled_reason: null,
    });
  });

  it(`keeps the last ${DELIVERY_LOG_SIZE} attempts of each channel`, async () => {
    const c = await customerWithChannels();
    await sql(`insert into private.notification_attempts (channel_id, event, ok, status_code) select $1, 'node_down', true, 200 from generate_series(1, $2)`, [
      c.discordId,
      DELIVERY_LOG_SIZE + 7,
    ]);
    await sql(`insert into private.notification_attempts (channel_id, event, ok, status_code) values ($1, 'node_up', false, 503)`, [c.discordId]);
    const { data } = await c.user.client.from('my_notification_attempts').select('id, event').eq('channel_id', c.discordId).order('id', { ascending: false });
    expect(data).toHaveLength(DELIVERY_LOG_SIZE);
    expect(data![0]!.event).toBe('node_up');
    // Another channel's log is its own.
    expect((await c.user.client.from('my_notification_attempts').select('id').eq('channel_id', c.webhookId)).data!.length).toBeLessThan(DELIVERY_LOG_SIZE);
  });
});

describe('Send a test', () => {
  it(`sends a test message, at most ${TESTS_PER_HOUR} an hour per channel`, async () => {
    const c = await customerWithChannels();
    for (let i = 0; i < TESTS_PER_HOUR; i++)
      expect(await invokeFunction(c.user.client, 'notification-test', { channelId: c.webhookId })).toEqual({ status: 200, body: { queued: true } });
    const limited = await invokeFunction(c.user.client, 'notification-test', { channelId: c.webhookId });
    expect(limited).toMatchObject({ status: 429, body: { error: notificationMessages.tooManyTests } });
    // Another channel has its own count.
    expect((await invokeFunction(c.user.client, 'notification-test', { channelId: c.discordId })).status).toBe(200);
    await deliver();
    expect(webhookGot(c)).toHaveLength(TESTS_PER_HOUR);
    expect(webhookGot(c)[0]!.payload).toMatchObject({ type: 'test' });
    expect(JSON.stringify(discordGot(c)[0]!.body)).toContain(testNotification.title);
    expect(await invokeFunction(c.user.client, 'notification-test', { channelId: 'nope' })).toMatchObject({
      status: 404,
      body: { error: notificationMessages.notFound },
    });
  });

  it('refuses a Telegram channel that is not linked yet', async () => {
    const user = await createTestUser(s);
    const t = await invokeFunction(user.client, 'notification-channel', { kind: 'telegram', name: 'Later' });
    expect(await invokeFunction(user.client, 'notification-test', { channelId: t.body.id })).toMatchObject({
      status: 409,
      body: { error: notificationMessages.notActive },
    });
  });
});

describe('low balance', () => {
  it('notifies once when a charge takes the balance below the threshold, and again only after it went back above', async () => {
    const c = await customerWithChannels(30);
    expect((await c.user.client.rpc('set_low_balance_threshold', { p_amount: 25 })).error).toBeNull();
    // A service charge as the SQL functions post one: the balance's trigger sees every charge.
    const charge = (amount: number) =>
      sql(`select private.post_transaction($1, $2, 'service_charge', 'Test charge', null, gen_random_uuid()::text)`, [c.user.id, -amount]);
    await charge(4);
    await deliver();
    expect(await mails(c.user.email, 'Your NodeHarbor balance is below $25.00')).toEqual([]);
    await charge(2);
    await charge(2);
    await deliver();
    expect(await mails(c.user.email, 'Your NodeHarbor balance is below $25.00')).toHaveLength(1);
    expect(webhookGot(c).map((d) => (d.payload as { type: string }).type)).toEqual(['low_balance']);
    await addCredits(s.deps.db, c.user.id, 10, 'Top-up');
    await charge(10);
    await deliver();
    expect(await mails(c.user.email, 'Your NodeHarbor balance is below $25.00')).toHaveLength(2);
    expect(discordGot(c)).toHaveLength(2);
  });
});
