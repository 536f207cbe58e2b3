import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CHANNELS, MAX_WEBHOOKS, NOTIFICATION_EVENTS, notificationMessages, TELEGRAM_CODE_MINUTES } from '../../src/shared/notifications';
import { startDiscordStandIn, type DiscordStandIn } from '../helpers/discord-stand-in';
import { invokeFunction } from '../helpers/functions';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { startTestServer, type TestServer } from '../helpers/server';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in';
import { createService, createTestUser, type TestUser } from '../helpers/users';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

// Settings › Notifications as the database and the functions keep it (issue 37, migration 0053):
// every refusal of the RPCs and of notification-channel, through supabase-js as the app calls them.

let s: TestServer;
let discord: DiscordStandIn;
let telegram: TelegramStandIn;
let receiver: WebhookReceiver;
let owner: TestUser;
let other: TestUser;

const hostOf = (url: string) => new URL(url).host;

beforeAll(async () => {
  [discord, telegram, receiver] = await Promise.all([startDiscordStandIn(), startTelegramStandIn(), startWebhookReceiver()]);
  s = await startTestServer({
    RATE_LIMITS_ENABLED: 'false',
    DISCORD_API_ORIGIN: discord.url,
    TELEGRAM_API_URL: telegram.url,
    TELEGRAM_BOT_TOKEN: telegram.token,
    OUTBOUND_ALLOW: [discord.url, telegram.url, receiver.url].map(hostOf).join(','),
  });
  owner = await createTestUser(s, { credits: 100 });
  other = await createTestUser(s);
});
afterAll(async () => {
  await s?.stop();
  await Promise.all([discord?.stop(), telegram?.stop(), receiver?.stop()]);
});

const addChannel = (u: TestUser, body: Record<string, unknown>) => invokeFunction(u.client, 'notification-channel', body);
const sql = async <T>(text: string, params: unknown[] = []) => (await s.deps.db.query<T>(text, params)).rows;

describe('adding a channel', () => {
  it('saves a webhook with a fresh whsec_ secret, shown once, and keeps only a hint readable', async () => {
    const url = `${receiver.url}/hooks/nodeharbor?token=abc`;
    const res = await addChannel(owner, { kind: 'webhook', name: 'My endpoint', url });
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const { data } = await owner.client.from('my_notification_channels').select('*').eq('id', res.body.id).single();
    expect(data).toMatchObject({ kind: 'webhook', name: 'My endpoint', state: 'active', failures: 0, target_hint: `${receiver.url}/hooks/nodeharbor` });
    expect(JSON.stringify(data)).not.toContain('whsec_');
    // Encrypted at rest: neither the URL's query nor the secret is in the row as text.
    const [row] = await sql<{ raw: string }>('select encode(target_encrypted, $2) as raw from private.notification_channels where id = $1', [
      res.body.id,
      'escape',
    ]);
    expect(row!.raw).not.toContain('token=abc');
    expect(row!.raw).not.toContain(String(res.body.secret));
  });

  it('re-encrypts the targets with the keys (keys:reencrypt), which still read the same', async () => {
    const res = await addChannel(owner, { kind: 'webhook', name: 'Rotated', url: `${receiver.url}/rotated` });
    const read = () =>
      sql<{ raw: string; target: string }>(
        `select encode(target_encrypted, 'hex') as raw, private.decrypt_with_either_key(target_encrypted) as target from private.notification_channels where id = $1`,
        [res.body.id],
      );
    const [before] = await read();
    await sql('select private.reencrypt_notification_targets()');
    const [after] = await read();
    expect(after!.raw).not.toBe(before!.raw);
    expect(JSON.parse(after!.target)).toEqual({ kind: 'webhook', url: `${receiver.url}/rotated`, secret: res.body.secret });
  });

  it('saves a Discord webhook with a hint that hides its token', async () => {
    const url = discord.webhookUrl();
    const res = await addChannel(owner, { kind: 'discord', name: 'Ops', url });
    expect(res.status).toBe(200);
    expect(res.body.secret).toBeUndefined();
    const { data } = await owner.client.from('my_notification_channels').select('target_hint').eq('id', res.body.id).single();
    expect(data!.target_hint).toMatch(/^Discord webhook …\/\d{4}$/);
    expect(data!.target_hint).not.toContain(url.split('/').at(-1)!);
  });

  it('makes a pending Telegram channel with a one-time code and names the bot', async () => {
    const res = await addChannel(owner, { kind: 'telegram', name: 'Phone' });
    expect(res.status).toBe(200);
    expect(res.body.code).toMatch(/^[A-Z2-9]{10}$/);
    expect(res.body.bot).toBe(telegram.botUsername);
    const { data } = await owner.client.from('my_notification_channels').select('*').eq('id', res.body.id).single();
    expect(data).toMatchObject({ state: 'pending', telegram_code: res.body.code, target_hint: 'Telegram chat' });
    const minutes = (Date.parse(data!.telegram_code_expires_at as string) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(TELEGRAM_CODE_MINUTES - 1);
    expect(minutes).toBeLessThanOrEqual(TELEGRAM_CODE_MINUTES);
    const { data: code, error } = await owner.client.rpc('new_telegram_code', { p_channel_id: res.body.id });
    expect(error).toBeNull();
    expect(code).not.toBe(res.body.code);
  });

  it.each([
    ['https://127.0.0.1/hook', notificationMessages.refusedAddress],
    ['https://10.0.0.1/hook', notificationMessages.refusedAddress],
    ['https://169.254.169.254/latest/meta-data', notificationMessages.refusedAddress],
    ['https://[::1]/hook', notificationMessages.refusedAddress],
    ['ftp://example.com/hook', notificationMessages.badWebhookUrl],
    ['https://nodeharbor-test.invalid/hook', notificationMessages.unresolvable],
  ])('refuses the webhook %s before saving anything', async (url, message) => {
    const before = await sql<{ n: number }>('select count(*)::int as n from private.notification_channels where user_id = $1', [owner.id]);
    const res = await addChannel(owner, { kind: 'webhook', name: 'Bad', url });
    expect(res).toMatchObject({ status: 400, body: { error: message } });
    const after = await sql<{ n: number }>('select count(*)::int as n from private.notification_channels where user_id = $1', [owner.id]);
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('refuses a Discord channel whose URL is not a Discord webhook', async () => {
    const res = await addChannel(owner, { kind: 'discord', name: 'Not Discord', url: `${receiver.url}/api/webhooks/123456789012345678/abc` });
    expect(res).toMatchObject({ status: 400, body: { error: notificationMessages.badDiscordUrl } });
  });

  it('refuses a bad kind, a missing or overlong name', async () => {
    expect(await addChannel(owner, { kind: 'slack', name: 'x' })).toMatchObject({ status: 400, body: { error: notificationMessages.badKind } });
    expect(await addChannel(owner, { kind: 'telegram', name: '  ' })).toMatchObject({ status: 400, body: { error: notificationMessages.nameRequired } });
    expect(await addChannel(owner, { kind: 'telegram', name: 'x'.repeat(61) })).toMatchObject({
      status: 400,
      body: { error: notificationMessages.nameTooLong },
    });
  });

  it('refuses the signed-out', async () => {
    expect((await invokeFunction(s.client(), 'notification-channel', { kind: 'telegram', name: 'x' })).status).toBe(401);
  });

  it(`allows at most ${MAX_WEBHOOKS} webhooks and ${MAX_CHANNELS} channels`, async () => {
    const u = await createTestUser(s);
    for (let i = 0; i < MAX_WEBHOOKS; i++) expect((await addChannel(u, { kind: 'webhook', name: `W${i}`, url: `${receiver.url}/h${i}` })).status).toBe(200);
    expect(await addChannel(u, { kind: 'webhook', name: 'One more', url: `${receiver.url}/h` })).toMatchObject({
      status: 400,
      body: { error: notificationMessages.tooManyWebhooks },
    });
    for (let i = MAX_WEBHOOKS; i < MAX_CHANNELS; i++) expect((await addChannel(u, { kind: 'telegram', name: `T${i}` })).status).toBe(200);
    expect(await addChannel(u, { kind: 'telegram', name: 'Eleventh' })).toMatchObject({ status: 400, body: { error: notificationMessages.tooManyChannels } });
  });
});

describe('preferences and their refusals', () => {
  let channelId: string;
  let serviceId: string;
  beforeAll(async () => {
    channelId = String((await addChannel(owner, { kind: 'discord', name: 'Prefs', url: discord.webhookUrl() })).body.id);
    serviceId = await createService(owner, 'prefs-node');
  });

  it('keeps only what differs from the default, and turns it back on', async () => {
    expect((await owner.client.rpc('set_notification_preference', { p_channel: channelId, p_event: 'payment_received', p_enabled: false })).error).toBeNull();
    expect((await owner.client.rpc('set_notification_preference', { p_channel: 'email', p_event: 'node_up', p_enabled: false })).error).toBeNull();
    const { data } = await owner.client.from('my_notification_preferences').select('*').order('event');
    expect(data).toEqual([
      { channel: 'email', event: 'node_up', enabled: false },
      { channel: channelId, event: 'payment_received', enabled: false },
    ]);
    await owner.client.rpc('set_notification_preference', { p_channel: 'email', p_event: 'node_up', p_enabled: true });
    expect((await owner.client.from('my_notification_preferences').select('*')).data).toHaveLength(1);
    expect((await other.client.from('my_notification_preferences').select('*')).data).toEqual([]);
  });

  it('never turns security notices off for e-mail, but may for a channel', async () => {
    const { error } = await owner.client.rpc('set_notification_preference', { p_channel: 'email', p_event: 'security_notice', p_enabled: false });
    expect(error?.message).toBe(notificationMessages.securityAlwaysEmailed);
    expect((await owner.client.rpc('set_notification_preference', { p_channel: channelId, p_event: 'security_notice', p_enabled: false })).error).toBeNull();
  });

  it('refuses an unknown event, and knows every event of the shared list', async () => {
    const { error } = await owner.client.rpc('set_notification_preference', { p_channel: 'email', p_event: 'node_exploded', p_enabled: false });
    expect(error?.message).toBe(notificationMessages.badEvent);
    for (const event of NOTIFICATION_EVENTS.filter((e) => e !== 'security_notice')) {
      expect((await owner.client.rpc('set_notification_preference', { p_channel: 'email', p_event: event, p_enabled: true })).error).toBeNull();
    }
  });

  it("treats another user's channel and service as absent", async () => {
    const notFound = { message: notificationMessages.notFound };
    expect((await other.client.rpc('set_notification_preference', { p_channel: channelId, p_event: 'node_down', p_enabled: false })).error).toMatchObject(
      notFound,
    );
    expect((await other.client.rpc('set_notification_preference', { p_channel: 'not-a-channel', p_event: 'node_down', p_enabled: false })).error).toMatchObject(
      notFound,
    );
    expect((await other.client.rpc('remove_notification_channel', { p_channel_id: channelId })).error).toMatchObject(notFound);
    expect((await other.client.rpc('enable_notification_channel', { p_channel_id: channelId })).error).toMatchObject(notFound);
    expect((await other.client.rpc('new_telegram_code', { p_channel_id: channelId })).error).toMatchObject(notFound);
    expect((await other.client.rpc('set_service_notification', { p_service_id: serviceId, p_channel: 'email', p_enabled: false })).error).toMatchObject({
      message: notificationMessages.serviceNotFound,
    });
    expect((await owner.client.rpc('new_telegram_code', { p_channel_id: channelId })).error).toMatchObject(notFound);
    expect((await other.client.from('my_notification_channels').select('id')).data).toEqual([]);
    expect(await invokeFunction(other.client, 'notification-test', { channelId })).toMatchObject({
      status: 404,
      body: { error: notificationMessages.notFound },
    });
  });

  it('mutes a service channel by channel', async () => {
    for (const channel of ['email', channelId]) {
      expect((await owner.client.rpc('set_service_notification', { p_service_id: serviceId, p_channel: channel, p_enabled: false })).error).toBeNull();
    }
    const { data } = await owner.client.from('my_service_notification_settings').select('*').order('channel');
    expect(data).toEqual(
      [
        { service_id: serviceId, channel: channelId, enabled: false },
        { service_id: serviceId, channel: 'email', enabled: false },
      ].sort((a, b) => a.channel.localeCompare(b.channel)),
    );
  });

  it('sets and clears the low-balance threshold, within its bounds', async () => {
    expect((await owner.client.rpc('set_low_balance_threshold', { p_amount: 12.5 })).error).toBeNull();
    expect((await owner.client.from('profiles').select('low_balance_threshold').eq('id', owner.id).single()).data).toEqual({ low_balance_threshold: 12.5 });
    for (const bad of [-1, 10000.01, 1.234]) {
      expect((await owner.client.rpc('set_low_balance_threshold', { p_amount: bad })).error?.message).toBe(notificationMessages.badThreshold);
    }
    // Not through the profile's own update: the RPC is the one way.
    await owner.client
      .from('profiles')
      .update({ low_balance_threshold: 1 } as never)
      .eq('id', owner.id);
    expect((await owner.client.from('profiles').select('low_balance_threshold').eq('id', owner.id).single()).data).toEqual({ low_balance_threshold: 12.5 });
    expect((await owner.client.rpc('set_low_balance_threshold', { p_amount: null })).error).toBeNull();
  });

  it('removes a channel with its preferences and service settings', async () => {
    expect((await owner.client.rpc('remove_notification_channel', { p_channel_id: channelId })).error).toBeNull();
    expect(await sql('select * from private.notification_preferences where channel = $1', [channelId])).toEqual([]);
    expect(await sql('select * from private.service_notification_settings where channel = $1', [channelId])).toEqual([]);
    expect((await owner.client.rpc('remove_notification_channel', { p_channel_id: channelId })).error?.message).toBe(notificationMessages.notFound);
  });
});

describe('the second factor', () => {
  it('refuses every change and read to an aal1 session of a user who has a factor', async () => {
    const u = await createTestUser(s);
    const id = String((await addChannel(u, { kind: 'telegram', name: 'Before' })).body.id);
    await verifyNewFactor(u);
    const aal1 = await signInAal1(s, u);
    expect((await aal1.rpc('set_notification_preference', { p_channel: 'email', p_event: 'node_down', p_enabled: false })).error).not.toBeNull();
    expect((await aal1.rpc('remove_notification_channel', { p_channel_id: id })).error).not.toBeNull();
    expect((await aal1.rpc('set_low_balance_threshold', { p_amount: 5 })).error).not.toBeNull();
    expect((await aal1.from('my_notification_channels').select('id')).data ?? []).toEqual([]);
    expect((await invokeFunction(aal1, 'notification-channel', { kind: 'telegram', name: 'x' })).status).toBe(403);
    expect((await invokeFunction(aal1, 'notification-test', { channelId: id })).status).toBe(403);
    // The same user past the factor may.
    expect((await u.client.rpc('set_notification_preference', { p_channel: 'email', p_event: 'node_down', p_enabled: false })).error).toBeNull();
    expect((await u.client.from('my_notification_channels').select('id')).data).toEqual([{ id }]);
  });
});
