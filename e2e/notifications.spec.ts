import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_STATE_LABELS, deliveryErrors, notificationMessages as m, testNotification } from '../src/shared/notifications';
import { notificationTexts as t } from '../src/web/features/notifications/notification-texts';
import { startDiscordStandIn } from '../test/helpers/discord-stand-in';
import { startTelegramStandIn } from '../test/helpers/telegram-stand-in';
import { startWebhookReceiver } from '../test/helpers/webhook-receiver';
import { createService, createTestUser, type TestUser } from '../test/helpers/users';
import { expectAccessibleIn } from './helpers/axe';
import { expectText, expectToast, serverError } from './helpers/page-tools';
import { sharedApp, startApp, signIn, type TestApp, type Viewport } from './helpers/app';

/** A common laptop and a common phone (issue 17). */
const DESKTOP: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };

type Discord = Awaited<ReturnType<typeof startDiscordStandIn>>;
type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
type Telegram = Awaited<ReturnType<typeof startTelegramStandIn>>;

let app: TestApp;
let discord: Discord;
let receiver: Receiver;
let telegram: Telegram;

// A server of its own: its outbound settings name the stand-ins, whose ports are this file's.
beforeAll(async () => {
  [discord, receiver, telegram] = await Promise.all([startDiscordStandIn(), startWebhookReceiver(), startTelegramStandIn()]);
  app = await startApp({
    OUTBOUND_ALLOW: [discord.url, receiver.url, telegram.url].map((u) => new URL(u).host).join(','),
    DISCORD_API_ORIGIN: discord.url,
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_URL: telegram.url,
  });
});

afterAll(async () => {
  await app?.stop();
  await Promise.all([discord?.stop(), receiver?.stop(), telegram?.stop()]);
});

async function openNotifications(page: Page, user: TestUser, on: TestApp = app): Promise<void> {
  await signIn(page, on.url, user.email, user.password);
  await page.goto(`${on.url}/dashboard/settings/notifications`);
  await page.getByRole('tab', { name: t.tab, selected: true }).waitFor();
  await page.getByRole('region', { name: t.channelsHeading }).waitFor();
  await page.getByRole('region', { name: t.preferencesHeading }).getByRole('switch').first().waitFor();
}

const channelGroup = (page: Page, name: string) => page.getByRole('region', { name: t.channelsHeading }).getByRole('group', { name, exact: true });

/** Fills and sends the Add channel dialog; the dialog stays open (for its answer or its messages). */
async function addChannel(page: Page, kind: 'Discord' | 'Telegram' | 'Webhook', name: string, url?: string) {
  await page.getByRole('button', { name: t.addChannel }).click();
  const dialog = page.getByRole('dialog', { name: t.addTitle });
  await dialog.getByRole('radio', { name: kind }).check();
  await dialog.getByLabel(t.name).fill(name);
  if (url !== undefined) await dialog.getByLabel(kind === 'Discord' ? t.discordUrl : t.webhookUrl).fill(url);
  await dialog.getByRole('button', { name: t.addChannel }).click();
  return dialog;
}

/** The page is no wider than the phone's screen: the matrix and the list scroll inside their cards. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewportSize()!.width);
}

async function channelId(user: TestUser, name: string): Promise<string> {
  const { data, error } = await user.client.from('my_notification_channels').select('id').eq('name', name).single();
  if (error) throw error;
  return (data as { id: string }).id;
}

describe('Settings › Notifications', () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const at = `${viewport.width} px`;

    it(`adds a Discord channel, sends it a test the stand-in receives, and shows the delivery log (${at})`, async () => {
      const user = await createTestUser(app.server);
      const { page, errors } = await app.newPage(viewport);
      await openNotifications(page, user);
      await expectText(page, user.email);

      // What the browser can check, it says in the server's words before sending.
      const dialog = await addChannel(page, 'Discord', '');
      await dialog.getByText(m.nameRequired).waitFor();
      await dialog.getByText(m.badDiscordUrl).waitFor();
      await dialog.getByLabel(t.name).fill('x'.repeat(61));
      await dialog.getByRole('button', { name: t.addChannel }).click();
      await dialog.getByText(m.nameTooLong).waitFor();

      await dialog.getByLabel(t.name).fill('Discord ops');
      await dialog.getByLabel(t.discordUrl).fill(discord.webhookUrl());
      await dialog.getByRole('button', { name: t.addChannel }).click();
      await expectToast(page, t.added, t.addedText('Discord ops'));
      const row = channelGroup(page, 'Discord ops');
      await row.getByText(CHANNEL_STATE_LABELS.active, { exact: true }).waitFor();
      await row.getByText(/Discord webhook/).waitFor();

      const before = discord.received().length;
      await row.getByRole('button', { name: t.sendTest }).click();
      await expectToast(page, t.testQueued, t.testQueuedText('Discord ops'));
      await expect.poll(() => discord.received().length, { timeout: 20_000 }).toBe(before + 1);
      expect(discord.received().at(-1)!.body.content).toContain(testNotification.title);

      await row.getByRole('button', { name: t.deliveryLog }).click();
      const log = page.getByRole('dialog', { name: t.deliveryLogTitle('Discord ops') });
      await log.getByText(t.delivered).waitFor();
      await log.getByText(t.testEvent).waitFor();
      await expectNoSidewaysScroll(page);
      await log.getByRole('button', { name: 'Close' }).click();

      await expectNoSidewaysScroll(page);
      expect(errors).toEqual([]);
    });
  }

  it('adds a webhook and shows its secret once; refuses a private address in the form (390 px)', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(PHONE);
    await openNotifications(page, user);

    const dialog = await addChannel(page, 'Webhook', 'My endpoint', 'http://hooks.example.com/nodeharbor');
    await dialog.getByText(m.badWebhookUrl).waitFor();
    // Only the server can tell where an address leads: its refusal shows under the field.
    await dialog.getByLabel(t.webhookUrl).fill('https://10.0.0.1/hook');
    await dialog.getByRole('button', { name: t.addChannel }).click();
    await dialog.getByText(m.refusedAddress).waitFor();
    await expect(dialog.getByLabel(t.webhookUrl).getAttribute('aria-invalid')).resolves.toBe('true');

    await dialog.getByLabel(t.webhookUrl).fill(`${receiver.url.replace('http:', 'https:')}/hook?token=abc`);
    await dialog.getByRole('button', { name: t.addChannel }).click();
    const answer = page.getByRole('dialog', { name: 'My endpoint' });
    await answer.getByText(t.secretOnce).waitFor();
    const secret = await answer.getByTestId('webhook-secret').innerText();
    expect(secret).toMatch(/^whsec_/);
    await answer.getByRole('button', { name: t.copy }).click();
    await expectToast(page, t.copied);
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(secret);
    await answer.getByRole('button', { name: t.done }).click();

    // Once: neither the list nor a reload shows it, only where it goes, its query cut.
    const row = channelGroup(page, 'My endpoint');
    await row.getByText(CHANNEL_STATE_LABELS.active, { exact: true }).waitFor();
    await expect(row.innerText()).resolves.not.toContain('token=abc');
    await page.reload();
    await channelGroup(page, 'My endpoint').waitFor();
    await expect(page.locator('body').innerText()).resolves.not.toContain(secret);
    await expectNoSidewaysScroll(page);
    // The browser logs the refusal's 400 itself.
    expect(errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
  });

  it('adds Telegram: the code to send the bot, a new code, and Active once the chat is linked (1366 px)', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(DESKTOP);
    await openNotifications(page, user);

    await addChannel(page, 'Telegram', 'My phone');
    const answer = page.getByRole('dialog', { name: 'My phone' });
    const code = (await answer.getByTestId('telegram-code').innerText()).replace('/start ', '');
    expect(code).not.toBe('');
    await answer.getByText(t.telegramSend(code)).waitFor();
    const link = answer.getByRole('link', { name: `@${telegram.botUsername}` });
    await expect(link.getAttribute('href')).resolves.toBe(`https://t.me/${telegram.botUsername}?start=${code}`);
    await answer.getByText(/The code works once and expires/).waitFor();

    await answer.getByRole('button', { name: t.newCode }).click();
    await expect.poll(async () => (await answer.getByTestId('telegram-code').innerText()).replace('/start ', '')).not.toBe(code);
    const fresh = (await answer.getByTestId('telegram-code').innerText()).replace('/start ', '');

    // The chat sends the code; the worker's poll links it, and the page, reading every few seconds, says so.
    telegram.sendFromChat({ chatId: 4242, text: `/start ${fresh}`, title: 'Ops chat' });
    await answer.getByText(t.telegramLinked).waitFor({ timeout: 30_000 });
    await answer.getByRole('button', { name: t.done }).click();
    await channelGroup(page, 'My phone').getByText(CHANNEL_STATE_LABELS.active, { exact: true }).waitFor();
    expect(errors).toEqual([]);
  });

  it('keeps a preference off after a reload, locks security e-mail, and puts a refused switch back (390 px)', async () => {
    const user = await createTestUser(app.server);
    const { page, context, errors } = await app.newPage(PHONE);
    await openNotifications(page, user);
    const matrix = page.getByRole('region', { name: t.preferencesHeading });

    const nodeDown = matrix.getByRole('switch', { name: 'Node down by E-mail' });
    await expect(nodeDown.getAttribute('aria-checked')).resolves.toBe('true');
    await nodeDown.click();
    await expect.poll(() => nodeDown.getAttribute('aria-checked')).toBe('false');
    const saved = async () => (await user.client.from('my_notification_preferences').select('channel, event, enabled')).data;
    await expect.poll(saved).toEqual([{ channel: 'email', event: 'node_down', enabled: false }]);
    await page.reload();
    await expect.poll(() => page.getByRole('switch', { name: 'Node down by E-mail' }).getAttribute('aria-checked')).toBe('false');

    // Security notices always go by e-mail: the switch is on and cannot be turned, and the server refuses it too.
    const security = page.getByRole('switch', { name: 'Security notices by E-mail' });
    await expect(security.isDisabled()).resolves.toBe(true);
    await expect(security.getAttribute('aria-checked')).resolves.toBe('true');
    await expectText(page, m.securityAlwaysEmailed);
    const refused = await user.client.rpc('set_notification_preference', { p_channel: 'email', p_event: 'security_notice', p_enabled: false });
    expect(refused.error?.message).toBe(m.securityAlwaysEmailed);

    // A save the server fails: the switch goes back and a toast says so.
    await context.route((u) => u.pathname === '/rest/v1/rpc/set_notification_preference', serverError);
    const payment = page.getByRole('switch', { name: 'Payment received by E-mail' });
    await payment.click();
    await expectToast(page, t.saveFailed, 'boom');
    await expect.poll(() => payment.getAttribute('aria-checked')).toBe('true');
    await expectNoSidewaysScroll(page);
    expect(errors.filter((e) => !e.includes('500'))).toEqual([]);
  });

  it('checks and saves the low-balance threshold (1366 px)', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(DESKTOP);
    await openNotifications(page, user);
    const card = page.getByRole('region', { name: t.thresholdHeading });
    const field = card.getByLabel(t.thresholdLabel);
    for (const bad of ['ten', '10000.01', '-5']) {
      await field.fill(bad);
      await card.getByRole('button', { name: t.thresholdSave }).click();
      await card.getByText(m.badThreshold).waitFor();
    }
    await field.fill('25');
    await card.getByRole('button', { name: t.thresholdSave }).click();
    await expectToast(page, t.thresholdSaved, t.thresholdSavedText('$25.00'));
    await page.reload();
    await expect.poll(() => page.getByLabel(t.thresholdLabel).inputValue()).toBe('25');
    await page.getByLabel(t.thresholdLabel).fill('');
    await page.getByRole('button', { name: t.thresholdSave }).click();
    await expectToast(page, t.thresholdSaved, t.thresholdOff);
    const { rows } = await app.server.deps.db.query<{ t: string | null }>('select low_balance_threshold::text as t from public.profiles where id = $1', [
      user.id,
    ]);
    expect(rows[0]!.t).toBeNull();
    expect(errors).toEqual([]);
  });

  for (const viewport of [DESKTOP, PHONE]) {
    it(`mutes a service, which turns all its channels off (${viewport.width} px)`, async () => {
      const user = await createTestUser(app.server, { credits: 100 });
      await createService(user, 'node-1');
      await createService(user, 'node-2');
      const { page, errors } = await app.newPage(viewport);
      await openNotifications(page, user);
      const card = page.getByRole('region', { name: t.servicesHeading });
      await card.getByRole('switch', { name: 'node-1 by E-mail' }).waitFor();

      await card.getByRole('switch', { name: 'Mute node-1' }).click();
      await expect.poll(() => card.getByRole('switch', { name: 'node-1 by E-mail' }).getAttribute('aria-checked')).toBe('false');
      await page.reload();
      const again = page.getByRole('region', { name: t.servicesHeading });
      await expect.poll(() => again.getByRole('switch', { name: 'Mute node-1' }).getAttribute('aria-checked')).toBe('true');
      await expect(again.getByRole('switch', { name: 'node-2 by E-mail' }).getAttribute('aria-checked')).resolves.toBe('true');
      // Turning its one channel back on is no longer muted.
      await again.getByRole('switch', { name: 'node-1 by E-mail' }).click();
      await expect.poll(() => again.getByRole('switch', { name: 'Mute node-1' }).getAttribute('aria-checked')).toBe('false');
      await expectNoSidewaysScroll(page);
      expect(errors).toEqual([]);
    });
  }

  it('shows a disabled channel with its reason, enables it again, and removes a channel after asking (390 px)', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(PHONE);
    await openNotifications(page, user);
    await addChannel(page, 'Discord', 'Flaky hook', discord.webhookUrl());
    await expectToast(page, t.added);
    // Discord says the webhook is gone: the log shows the failure, its answer and why.
    discord.failNext({ kind: 'not-found' });
    await channelGroup(page, 'Flaky hook').getByRole('button', { name: t.sendTest }).click();
    await expectToast(page, t.testQueued);
    await channelGroup(page, 'Flaky hook').getByRole('button', { name: t.deliveryLog }).click();
    const log = page.getByRole('dialog', { name: t.deliveryLogTitle('Flaky hook') });
    await log.getByText(t.failedAttempt, { exact: true }).waitFor();
    await log.getByText('404', { exact: true }).waitFor();
    await log.getByText(deliveryErrors.discordGone).waitFor();
    await log.getByText(t.testEvent).waitFor();
    await expectNoSidewaysScroll(page);
    await page.keyboard.press('Escape');

    // After repeated failures delivery disables it, as only the worker does.
    const id = await channelId(user, 'Flaky hook');
    await disableChannel(id, deliveryErrors.discordGone);
    await page.reload();
    const row = channelGroup(page, 'Flaky hook');
    await row.getByText(CHANNEL_STATE_LABELS.disabled, { exact: true }).waitFor();
    await row.getByText(t.disabledBecause(deliveryErrors.discordGone)).waitFor();
    expect(await row.getByRole('button', { name: t.sendTest }).count()).toBe(0);
    await row.getByRole('button', { name: t.enableAgain }).click();
    await expectToast(page, t.enabled, t.enabledText('Flaky hook'));
    await row.getByText(CHANNEL_STATE_LABELS.active, { exact: true }).waitFor();

    await row.getByRole('button', { name: t.remove }).click();
    const confirm = page.getByRole('dialog', { name: t.removeTitle('Flaky hook') });
    await confirm.getByText(t.removeDescription).waitFor();
    await confirm.getByRole('button', { name: t.cancel }).click();
    await row.getByRole('button', { name: t.remove }).click();
    await confirm.getByRole('button', { name: t.removeConfirm }).click();
    await expectToast(page, t.removed, 'Flaky hook');
    await expect.poll(() => channelGroup(page, 'Flaky hook').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('says what went wrong when the server refuses or fails (1366 px)', async () => {
    const user = await createTestUser(app.server);
    const { page, context, errors } = await app.newPage(DESKTOP);
    const rpc = (name: string) => (u: URL) => u.pathname === `/rest/v1/rpc/${name}`;
    const channelsRead = (u: URL) => u.pathname === '/rest/v1/my_notification_channels';
    await context.route(channelsRead, serverError);
    await signIn(page, app.url, user.email, user.password);
    await page.goto(`${app.url}/dashboard/settings/notifications`);
    await expectText(page, t.failed);
    await context.unroute(channelsRead);
    await page.reload();
    await page.getByRole('region', { name: t.preferencesHeading }).getByRole('switch').first().waitFor();
    await expectText(page, t.servicesEmpty);

    // At most TESTS_PER_HOUR tests an hour per channel.
    await addChannel(page, 'Discord', 'Chatty', discord.webhookUrl());
    await expectToast(page, t.added);
    const chatty = channelGroup(page, 'Chatty');
    for (let i = 0; i < 5; i++) {
      await chatty.getByRole('button', { name: t.sendTest }).click();
      await expect.poll(() => chatty.getByRole('button', { name: t.sendTest }).isEnabled()).toBe(true);
    }
    await chatty.getByRole('button', { name: t.sendTest }).click();
    await expectToast(page, t.testFailed, m.tooManyTests);

    await context.route((u) => u.pathname === '/rest/v1/my_notification_attempts', serverError);
    await chatty.getByRole('button', { name: t.deliveryLog }).click();
    await page
      .getByRole('dialog', { name: t.deliveryLogTitle('Chatty') })
      .getByText(t.deliveryLogFailed)
      .waitFor();
    await page.keyboard.press('Escape');

    // Disabled with no reason recorded; enabling and removing fail on the way.
    await disableChannel(await channelId(user, 'Chatty'), null);
    await page.reload();
    await chatty.getByText(t.disabledNoReason).waitFor();
    await context.route(rpc('enable_notification_channel'), serverError);
    await chatty.getByRole('button', { name: t.enableAgain }).click();
    await expectToast(page, t.enableFailed, 'boom');
    await context.route(rpc('remove_notification_channel'), serverError);
    await chatty.getByRole('button', { name: t.remove }).click();
    await page
      .getByRole('dialog', { name: t.removeTitle('Chatty') })
      .getByRole('button', { name: t.removeConfirm })
      .click();
    await expectToast(page, t.removeFailed, 'boom');
    await page.keyboard.press('Escape');

    // A Telegram code that expired is not shown; a new one is, unless making it fails.
    await addChannel(page, 'Telegram', 'Old phone');
    await page.getByRole('dialog', { name: 'Old phone' }).getByRole('button', { name: t.done }).click();
    await app.server.deps.db.query(`update private.notification_channels set telegram_code_expires_at = now() - interval '1 minute' where id = $1`, [
      await channelId(user, 'Old phone'),
    ]);
    await page.reload();
    const phone = channelGroup(page, 'Old phone');
    await phone.getByText(t.telegramExpired).waitFor();
    await phone.getByRole('button', { name: t.newCode }).click();
    await phone.getByTestId('telegram-code').waitFor();
    await context.route(rpc('new_telegram_code'), serverError);
    await phone.getByRole('button', { name: t.newCode }).click();
    await expectToast(page, t.newCodeFailed, 'boom');

    await context.route(rpc('set_low_balance_threshold'), serverError);
    await page.getByLabel(t.thresholdLabel).fill('5');
    await page.getByRole('button', { name: t.thresholdSave }).click();
    await page.getByRole('region', { name: t.thresholdHeading }).getByText('boom').waitFor();
    expect(errors.filter((e) => !/status of (429|500)/.test(e))).toEqual([]);
  });

  it('says Telegram is not available where no bot is configured (390 px)', async () => {
    const plain = await sharedApp();
    const user = await createTestUser(plain.server);
    const { page } = await plain.newPage(PHONE);
    await openNotifications(page, user, plain);
    const dialog = await addChannel(page, 'Telegram', 'My phone');
    await dialog.getByRole('alert').getByText(m.telegramOff).waitFor();
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`has no serious accessibility problems in the ${theme} theme`, async () => {
      const user = await createTestUser(app.server, { credits: 100 });
      await createService(user, 'node-1');
      const { error } = await user.client
        .from('profiles')
        .update({ darkmode_enabled: theme === 'dark' })
        .eq('id', user.id);
      if (error) throw error;
      const { page } = await app.newPage(DESKTOP);
      await openNotifications(page, user);
      await addChannel(page, 'Discord', 'Discord ops', discord.webhookUrl());
      await expectToast(page, t.added);
      await addChannel(page, 'Telegram', 'My phone');
      await page.getByRole('dialog', { name: 'My phone' }).getByRole('button', { name: t.done }).click();
      await addChannel(page, 'Discord', 'Flaky hook', discord.webhookUrl());
      await expectToast(page, t.added, t.addedText('Flaky hook'));
      await disableChannel(await channelId(user, 'Flaky hook'), deliveryErrors.discordGone);
      await page.reload();
      await channelGroup(page, 'Flaky hook').getByText(CHANNEL_STATE_LABELS.disabled, { exact: true }).waitFor();
      await page.getByRole('region', { name: t.servicesHeading }).getByRole('switch', { name: 'Mute node-1' }).waitFor();
      await expectAccessibleIn(page, theme, '/dashboard/settings/notifications');

      await page.setViewportSize(PHONE);
      await expectAccessibleIn(page, theme, '/dashboard/settings/notifications at 390 px');
      await page.getByRole('button', { name: t.addChannel }).click();
      await page.getByRole('dialog', { name: t.addTitle }).getByRole('button', { name: t.addChannel }).click();
      await page.getByText(m.nameRequired).waitFor();
      await expectAccessibleIn(page, theme, 'Add channel, with its messages');
      await page.keyboard.press('Escape');
      await channelGroup(page, 'Discord ops').getByRole('button', { name: t.deliveryLog }).click();
      await page
        .getByRole('dialog', { name: t.deliveryLogTitle('Discord ops') })
        .getByText(t.deliveryLogEmpty)
        .waitFor();
      await expectAccessibleIn(page, theme, 'Delivery log');
    });
  }
});

/** A channel as delivery leaves it after repeated failures: the database's own state, as only the worker sets it. */
async function disableChannel(id: string, reason: string | null): Promise<void> {
  await app.server.deps.db.query(`update private.notification_channels set state = 'disabled', failures = 3, disabled_reason = $2 where id = $1`, [id, reason]);
}
