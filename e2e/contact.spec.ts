import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { messages } from '../src/shared/validation';
import { MOBILE, startApp, type TestApp } from './helpers/app';
import { expectToast, holdRequests, stir } from './helpers/page-tools';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.stop());

async function fill(page: Page, v: { name?: string; email?: string; topic?: string; message?: string }) {
  if (v.name !== undefined) await page.getByLabel('Name').fill(v.name);
  if (v.email !== undefined) await page.getByLabel('Email').fill(v.email);
  if (v.topic !== undefined) await page.getByLabel('Topic').selectOption(v.topic);
  if (v.message !== undefined) await page.getByLabel('Message').fill(v.message);
}
const send = (page: Page) => page.getByRole('button', { name: 'Send Message' }).click();
const valid = { name: 'Ada Operator', email: 'ada@nodeharbor.test', topic: 'support', message: 'My Town Star node needs a new key.' };
const stored = async () => (await app.server.deps.db.query<{ n: number }>('select count(*)::int as n from public.contact_messages')).rows[0]!.n;

it('shows every rule of spec §5 and sends nothing while one fails', async () => {
  const { page } = await app.newPage();
  await page.goto(`${app.url}/contact`);
  const before = await stored();
  // A person's pointer reaches the button before the click: that loads the form's code.
  await stir(page);
  await send(page);
  for (const m of [messages.contactNameShort, messages.email, messages.topic, messages.contactMessageShort]) await page.getByText(m).waitFor();
  await fill(page, { name: 'x'.repeat(101), email: 'ada@', message: 'y'.repeat(1001) });
  await send(page);
  for (const m of [messages.contactNameLong, messages.email, messages.contactMessageLong]) await page.getByText(m).waitFor();
  // What a bot does: fill the field people never see.
  await fill(page, valid);
  await page.locator('#contact-website').fill('https://spam.example', { force: true });
  await send(page);
  await page.getByText(messages.bot).waitFor();
  expect(await stored()).toBe(before);
});

it.each([
  ['1280 px', undefined],
  ['375 px', MOBILE],
])('sends a valid message at %s: "Sending...", then "Thanks for contacting us!", and it is stored', async (_l, viewport) => {
  const { page } = await app.newPage(viewport);
  await page.goto(`${app.url}/contact`);
  const before = await stored();
  await fill(page, valid);
  const release = await holdRequests(page, '**/functions/v1/contact-form');
  await send(page);
  await page.getByRole('button', { name: 'Sending...' }).waitFor();
  release();
  await expectToast(page, 'Thanks for contacting us!');
  expect(await stored()).toBe(before + 1);
  await expect(page.getByLabel('Name').inputValue()).resolves.toBe('');
});

it('shows the server\'s own message in an "Error" toast (the rate limit)', async () => {
  const limited = await startApp({ RATE_LIMITS_ENABLED: 'true' });
  try {
    const { page } = await limited.newPage();
    await page.goto(`${limited.url}/contact`);
    for (let i = 0; i < 5; i++) {
      await fill(page, valid);
      await send(page);
      await page.getByRole('button', { name: 'Send Message' }).waitFor();
      await expect(page.getByLabel('Name').inputValue()).resolves.toBe('');
    }
    await fill(page, valid);
    await send(page);
    await expectToast(page, 'Error');
    await expectToast(page, 'Too many messages. Please try again in 10 minutes.');
  } finally {
    await limited.stop();
  }
});

it('says "Something went wrong. Please try again later." when the server cannot be reached', async () => {
  const { page } = await app.newPage();
  await page.goto(`${app.url}/contact`);
  await page.route('**/functions/v1/contact-form', (route) => route.abort('connectionrefused'));
  await fill(page, valid);
  await send(page);
  await expectToast(page, 'Something went wrong. Please try again later.');
});

it('loads the form\'s code only when the visitor stirs, and keeps what was typed before it arrived', async () => {
  const { page } = await app.newPage();
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
  });
  await page.goto(`${app.url}/contact`, { waitUntil: 'networkidle' });
  const before = scripts.length;
  await expect(page.getByRole('button', { name: 'Send Message' }).isDisabled()).resolves.toBe(true);
  await page.getByLabel('Name').pressSequentially('Ada');
  await page.getByRole('button', { name: 'Send Message' }).waitFor();
  await page.waitForFunction(() => !document.querySelector<HTMLButtonElement>('button[type=submit]')!.disabled);
  expect(scripts.length).toBeGreaterThan(before);
  await expect(page.getByLabel('Name').inputValue()).resolves.toBe('Ada');
});
