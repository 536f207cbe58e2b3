import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryErrors, notificationMessages as m } from '../../src/shared/notifications';
import { ConfigError, loadConfig } from '../../src/server/env';
import { isPublicAddress } from '../../src/server/outbound/address-policy';
import { createOutboundClient, OutboundError, type Resolver } from '../../src/server/outbound/outbound-client';
import { createChannelSender } from '../../src/server/notify/create-channel-sender';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { newWebhookSecret, nodeDownMessage } from './fixtures';

/** Names a test resolves as it likes, as a hostile DNS would; any other name does not exist. */
const names: Record<string, string[]> = {
  'evil.example': ['127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.216.34', '10.0.0.1'],
  'v6-loopback.example': ['::1'],
  'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
};
const resolver: Resolver = async (host) => {
  const found = names[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

describe('the address policy: only public unicast addresses', () => {
  it.each([
    '0.0.0.0',
    '10.0.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '100.100.100.200',
    '100.64.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '192.0.0.192',
    '198.18.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '::7f00:1',
    'fd00:ec2::254',
    'fe80::1',
    'fc00::1',
    'ff02::1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::1',
    '2001:db8::1',
    '[::1]',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8'])('lets %s through', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('outbound requests (SSRF)', () => {
  let receiver: WebhookReceiver;
  let elsewhere: WebhookReceiver;
  let allowed: string;

  beforeAll(async () => {
    [receiver, elsewhere] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
    allowed = new URL(receiver.url).host;
  });
  afterAll(async () => {
    await Promise.all([receiver?.stop(), elsewhere?.stop()]);
  });

  const sender = (over: { resolve?: Resolver; timeoutMs?: number } = {}) =>
    createChannelSender({
      allow: [allowed],
      discordApiOrigin: 'https://discord.com',
      telegramApiUrl: 'https://api.telegram.org',
      telegramBotToken: undefined,
      resolve: resolver,
      ...over,
    });

  const refused = [
    'https://127.0.0.1/hook',
    'https://10.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::127.0.0.1]/hook',
    'https://[fd00:ec2::254]/latest/meta-data/',
    'https://100.100.100.200/latest/meta-data/',
    'https://2130706433/hook',
    'https://0x7f.1/hook',
    'https://evil.example/hook',
    'https://metadata.example/latest/meta-data/',
    'https://mixed.example/hook',
    'https://v6-loopback.example/hook',
  ];

  it.each(refused)('refuses %s when it is saved', async (url) => {
    expect(await sender().checkUrl('webhook', url)).toBe(m.refusedAddress);
  });

  it.each(refused)('refuses %s when it is sent, without a request', async (url) => {
    const before = receiver.deliveries().length + elsewhere.deliveries().length;
    const result = await sender().send({ kind: 'webhook', url, secret: newWebhookSecret() }, nodeDownMessage());
    expect(result).toEqual({ ok: false, status: null, error: deliveryErrors.refused, retry: false });
    expect(receiver.deliveries().length + elsewhere.deliveries().length).toBe(before);
  });

  it('refuses localhost as the system resolves it', async () => {
    const system = createChannelSender({
      allow: [allowed],
      discordApiOrigin: 'https://discord.com',
      telegramApiUrl: 'https://api.telegram.org',
      telegramBotToken: undefined,
    });
    expect(await system.checkUrl('webhook', 'https://localhost/hook')).toBe(m.refusedAddress);
    expect(await system.send({ kind: 'webhook', url: 'https://localhost/hook', secret: newWebhookSecret() }, nodeDownMessage())).toMatchObject({
      ok: false,
      error: deliveryErrors.refused,
      retry: false,
    });
  });

  it('refuses what is not an https URL on port 443 without credentials', async () => {
    const s = sender();
    for (const url of [
      'not a url',
      'http://public.example/hook',
      'ftp://public.example/hook',
      'https://user:secret@public.example/hook',
      'https://public.example:8443/hook',
      `http://127.0.0.1:${Number(new URL(elsewhere.url).port)}/hook`,
      `https://public.example/${'a'.repeat(2100)}`,
    ]) {
      expect(await s.checkUrl('webhook', url), url).toBe(m.badWebhookUrl);
    }
    expect(await s.send({ kind: 'webhook', url: 'https://user:secret@public.example/hook', secret: newWebhookSecret() }, nodeDownMessage())).toEqual({
      ok: false,
      status: null,
      error: deliveryErrors.badUrl,
      retry: false,
    });
  });

  it('says when a name cannot be found, and accepts a public one', async () => {
    expect(await sender().checkUrl('webhook', 'https://nowhere.example/hook')).toBe(m.unresolvable);
    expect(await sender().checkUrl('webhook', 'https://public.example/hook')).toBeUndefined();
    expect(await sender().checkUrl('webhook', 'https://[2606:4700::1111]/hook')).toBeUndefined();
    // At send time a name that does not resolve now may later: the attempt is retried.
    expect(await sender().send({ kind: 'webhook', url: 'https://nowhere.example/hook', secret: newWebhookSecret() }, nodeDownMessage())).toMatchObject({
      ok: false,
      error: deliveryErrors.unresolvable,
      retry: true,
    });
  });

  it('connects to the address it checked: DNS is asked once, and its next answer is never used', async () => {
    let calls = 0;
    // The first answer is the stand-in (allow-listed by its name), the next a metadata address.
    const rebinding: Resolver = async () => (++calls === 1 ? ['127.0.0.1'] : ['169.254.169.254']);
    const port = new URL(receiver.url).port;
    const client = createOutboundClient({ allow: [`rebind.test:${port}`], resolve: rebinding });
    const res = await client.request(`http://rebind.test:${port}/pinned`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(204);
    expect(calls).toBe(1);
    expect(receiver.deliveries().at(-1)).toMatchObject({ path: '/pinned', headers: { host: `rebind.test:${port}` } });
  });

  it('tries each checked address in turn, as a connection by name would', async () => {
    const port = new URL(receiver.url).port;
    // Nothing listens on 127.0.0.2: the connection moves on to the next checked address.
    const client = createOutboundClient({ allow: [`two.test:${port}`], resolve: async () => ['127.0.0.2', '127.0.0.1'] });
    expect((await client.request(`http://two.test:${port}/second`, { method: 'POST', body: '{}' })).status).toBe(204);
  });

  it('does not follow a 302 to loopback: the attempt fails for good, and the target is never asked', async () => {
    receiver.answerNext({ redirectTo: `${elsewhere.url}/landed` });
    const result = await sender().send({ kind: 'webhook', url: `${receiver.url}/hook`, secret: newWebhookSecret() }, nodeDownMessage());
    expect(result).toEqual({ ok: false, status: 302, error: deliveryErrors.redirect, retry: false });
    expect(elsewhere.deliveries()).toEqual([]);
  });

  it('reads at most 64 KiB of an answer and drops the rest', async () => {
    receiver.answerNext({ oversized: 20 * 1024 * 1024 });
    const client = createOutboundClient({ allow: [allowed] });
    const res = await client.request(`${receiver.url}/big`, { method: 'GET' });
    expect(res).toMatchObject({ status: 200, truncated: true });
    expect(res.body.length).toBe(64 * 1024);
    // A delivery answered 200 with a huge body is still delivered, and still bounded.
    receiver.answerNext({ oversized: 20 * 1024 * 1024 });
    expect(await sender().send({ kind: 'webhook', url: `${receiver.url}/hook`, secret: newWebhookSecret() }, nodeDownMessage())).toEqual({
      ok: true,
      status: 200,
    });
  });

  it('gives up on a server that never answers, within the deadline, and retries later', async () => {
    receiver.answerNext({ hang: true });
    const started = Date.now();
    const result = await sender({ timeoutMs: 500 }).send({ kind: 'webhook', url: `${receiver.url}/hook`, secret: newWebhookSecret() }, nodeDownMessage());
    expect(result).toEqual({ ok: false, status: null, error: deliveryErrors.timeout, retry: true });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('gives up on an answer whose body stops half-way: the deadline covers the whole answer', async () => {
    receiver.answerNext({ stall: true });
    const client = createOutboundClient({ allow: [allowed], timeoutMs: 500 });
    const error = await client.request(`${receiver.url}/stall`, { method: 'GET' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'timeout' });
  });

  it('fails a connection that is refused, as retryable, naming no path', async () => {
    const port = new URL(elsewhere.url).port;
    await elsewhere.stop();
    const client = createOutboundClient({ allow: [`127.0.0.1:${port}`] });
    const error = await client.request(`http://127.0.0.1:${port}/secret-path-token`, { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundError);
    expect(error).toMatchObject({ reason: 'network' });
    expect((error as Error).message).not.toContain('secret-path-token');
  });
});

describe('the outbound settings', () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (e) {
      if (e instanceof ConfigError) return e.problems;
      throw e;
    }
  };

  it('defaults to Discord and Telegram themselves, no bot and no exception', () => {
    expect(loadConfig({}).outbound).toEqual({
      allow: [],
      discordApiOrigin: 'https://discord.com',
      telegramApiUrl: 'https://api.telegram.org',
      telegramBotToken: undefined,
    });
    const token = `123456789:${'A'.repeat(35)}`;
    expect(
      loadConfig({
        TELEGRAM_BOT_TOKEN: token,
        OUTBOUND_ALLOW: '127.0.0.1:4000, [::1]:5000,stand-in.test',
        DISCORD_API_ORIGIN: 'http://127.0.0.1:4000/',
        TELEGRAM_API_URL: 'http://stand-in.test:4100',
      }).outbound,
    ).toEqual({
      allow: ['127.0.0.1:4000', '[::1]:5000', 'stand-in.test'],
      discordApiOrigin: 'http://127.0.0.1:4000',
      telegramApiUrl: 'http://stand-in.test:4100',
      telegramBotToken: token,
    });
  });

  it('refuses a malformed bot token without repeating it, an origin with a path, and a bad allow-list entry', () => {
    const found = problems({
      TELEGRAM_BOT_TOKEN: 'not-a-token-secret',
      DISCORD_API_ORIGIN: 'https://discord.com/api',
      OUTBOUND_ALLOW: 'http://127.0.0.1:4000',
    });
    expect(found).toEqual([
      'TELEGRAM_BOT_TOKEN must be a bot token as BotFather gives it (123456789:ABC…)',
      'DISCORD_API_ORIGIN must be an origin only (scheme, host and port), like https://discord.com',
      'OUTBOUND_ALLOW must list hosts or host:port separated by commas: "http://127.0.0.1:4000" is not a host or host:port',
    ]);
    expect(problems({ TELEGRAM_API_URL: 'http://127.0.0.1:4100', DISCORD_API_ORIGIN: 'https://127.0.0.1:4200', OUTBOUND_ALLOW: '127.0.0.1:4300' })).toEqual([
      'DISCORD_API_ORIGIN must be an https URL on port 443, or its host and port be listed in OUTBOUND_ALLOW, got "https://127.0.0.1:4200"',
      'TELEGRAM_API_URL must be an https URL on port 443, or its host and port be listed in OUTBOUND_ALLOW, got "http://127.0.0.1:4100"',
    ]);
    expect(problems({ OUTBOUND_ALLOW: 'host:99999' })).toEqual([
      'OUTBOUND_ALLOW must list hosts or host:port separated by commas: "host:99999" is not a host or host:port',
    ]);
  });
});
