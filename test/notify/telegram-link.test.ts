import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationMessages, telegramReplies } from '../../src/shared/notifications';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { schedules } from '../../src/server/jobs/registry';
import type { JobDeps } from '../../src/server/jobs/task';
import { pollTelegram } from '../../src/server/jobs/tasks/poll-telegram';
import { invokeFunction } from '../helpers/functions';
import { startTestServer, type TestServer } from '../helpers/server';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in';
import { createTestUser, type TestUser } from '../helpers/users';

// Linking a Telegram chat to a channel by its one-time code (issue 37), against a stand-in of the
// Bot API's getUpdates and sendMessage.

let s: TestServer;
let deps: JobDeps;
let telegram: TelegramStandIn;
let user: TestUser;

beforeAll(async () => {
  telegram = await startTelegramStandIn();
  s = await startTestServer({
    RATE_LIMITS_ENABLED: 'false',
    TELEGRAM_API_URL: telegram.url,
    TELEGRAM_BOT_TOKEN: telegram.token,
    OUTBOUND_ALLOW: new URL(telegram.url).host,
  });
  deps = await createJobDeps(s.deps);
  user = await createTestUser(s);
});
afterAll(async () => {
  await s?.stop();
  await telegram?.stop();
});

const poll = () => pollTelegram.run({}, deps);
const channel = async (id: unknown) => (await user.client.from('my_notification_channels').select('*').eq('id', id).single()).data!;
const repliesTo = (chatId: number) =>
  telegram
    .sent()
    .filter((m) => m.chatId === String(chatId))
    .map((m) => m.text);
const newTelegramChannel = async (name: string) =>
  (await invokeFunction(user.client, 'notification-channel', { kind: 'telegram', name })).body as { id: string; code: string };

describe('linking a chat', () => {
  it('links the channel whose code a chat sends, once, and answers the chat', async () => {
    const t = await newTelegramChannel('Group');
    telegram.sendFromChat({ chatId: -1001, text: `/start ${t.code}`, title: 'Validators' });
    await poll();
    expect(await channel(t.id)).toMatchObject({ state: 'active', telegram_code: null, target_hint: 'Telegram chat “Validators”' });
    expect(repliesTo(-1001)).toEqual([telegramReplies.linked('Group')]);
    // The chat id is stored encrypted with the target, never as text.
    const [row] = (
      await s.deps.db.query<{ raw: string }>(`select encode(target_encrypted, 'escape') as raw from private.notification_channels where id = $1`, [t.id])
    ).rows;
    expect(row!.raw).not.toContain('-1001');
    // The code is spent: another chat sending it links nothing.
    telegram.sendFromChat({ chatId: 2002, text: t.code });
    await poll();
    expect(repliesTo(2002)).toEqual([telegramReplies.badCode]);
    expect((await channel(t.id)).target_hint).toBe('Telegram chat “Validators”');
    // Every update was confirmed: the stored offset moved past them.
    await poll();
    expect(telegram.pendingUpdates()).toBe(0);
    expect(repliesTo(2002)).toHaveLength(1);
  });

  it('links nothing for a wrong or an expired code', async () => {
    const t = await newTelegramChannel('Expired');
    telegram.sendFromChat({ chatId: 3003, text: 'AAAAAAAAAA' });
    telegram.sendFromChat({ chatId: 3003, text: 'hello' });
    await poll();
    expect(repliesTo(3003)).toEqual([telegramReplies.badCode, telegramReplies.help]);
    await s.deps.db.query(`update private.notification_channels set telegram_code_expires_at = now() - interval '1 second' where id = $1`, [t.id]);
    telegram.sendFromChat({ chatId: 3003, text: `/start ${t.code}` });
    await poll();
    expect(repliesTo(3003).at(-1)).toBe(telegramReplies.badCode);
    expect(await channel(t.id)).toMatchObject({ state: 'pending', telegram_code: null });
  });

  it('stops answering a chat that guesses, and a right code then links nothing for it', async () => {
    const t = await newTelegramChannel('Guessed');
    for (let i = 0; i < 10; i++) telegram.sendFromChat({ chatId: 4004, text: `ZZZZZZZZ${String(i).padStart(2, '2').replace(/[01]/g, '3')}` });
    telegram.sendFromChat({ chatId: 4004, text: t.code });
    await poll();
    expect(repliesTo(4004)).toHaveLength(10);
    expect((await channel(t.id)).state).toBe('pending');
    // Another chat is not held back by it.
    telegram.sendFromChat({ chatId: 5005, text: t.code });
    await poll();
    expect((await channel(t.id)).state).toBe('active');
  });

  it('polls only when a bot token is set', () => {
    expect(schedules(60, 30).map((x) => x.task)).not.toContain('poll-telegram');
    expect(schedules(60, 30, undefined, true)).toContainEqual({ task: 'poll-telegram', everySeconds: 3 });
  });

  it('answers that Telegram is off when no bot is configured, and limits additions per hour', async () => {
    const off = await startTestServer({ RATE_LIMITS_ENABLED: 'true' });
    try {
      const u = await createTestUser(off);
      for (let i = 0; i < 30; i++) {
        expect(await invokeFunction(u.client, 'notification-channel', { kind: 'telegram', name: 'x' })).toMatchObject({
          status: 400,
          body: { error: notificationMessages.telegramOff },
        });
      }
      expect(await invokeFunction(u.client, 'notification-channel', { kind: 'telegram', name: 'x' })).toMatchObject({
        status: 429,
        body: { error: notificationMessages.tooManyAdditions },
      });
    } finally {
      await off.stop();
    }
  });
});
