import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { messages } from '../src/shared/validation';
import { MOBILE, sharedApp, startApp, type TestApp } from './helpers/app';
import { expectToast, holdRequests, stir } from './helpers/page-tools';

const DESKTOP = { width: 1366, height: 850 } as const;
const PHONE = { width: 390, height: 844 } as const;

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

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

it("loads the form's code only when the visitor stirs, with Send enabled before it, and keeps what was typed before it arrived", async () => {
  const { page } = await app.newPage();
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
  });
  await page.goto(`${app.url}/contact`, { waitUntil: 'networkidle' });
  expect(scripts.some((s) => s.includes('contact-form'))).toBe(false);
  // A move that moves nothing, as Chromium sends by itself when the layout changes under the
  // pointer: no visitor stirred. Two frames later the form's code has still not been asked for.
  await page.mouse.move(0, 0);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  expect(scripts.some((s) => s.includes('contact-form'))).toBe(false);
  expect(await page.getByRole('button', { name: 'Send Message' }).isEnabled()).toBe(true);
  const arrived = page.waitForResponse(/contact-form-[^/]*\.js$/);
  await page.getByLabel('Name').pressSequentially('Ada');
  await arrived;
  await expect(page.getByLabel('Name').inputValue()).resolves.toBe('Ada');
});

/** The message shown under the field labelled `label` (the text its aria-describedby points at), or '' when none. */
const messageUnder = (page: Page, label: string) =>
  page.getByLabel(label, { exact: true }).evaluate((el) => {
    const id = el.getAttribute('aria-describedby');
    return id ? (document.getElementById(id)?.textContent ?? '') : '';
  });
const fields = ['Name', 'Email', 'Topic', 'Message'] as const;
const shown = (page: Page) => Promise.all(fields.map((f) => messageUnder(page, f)));
/** The form's own code, loaded on the first interaction. */
const formCode = '**/assets/contact-form-*.js';
const incomplete = [messages.contactNameShort, messages.email, messages.topic, messages.contactMessageShort];

it.each([
  ['1366 px', DESKTOP],
  ['390 px', PHONE],
])('has Send enabled before any input; a click on the empty form shows one message under each field, at %s', async (_l, viewport) => {
  const { page } = await app.newPage(viewport);
  await page.goto(`${app.url}/contact`, { waitUntil: 'networkidle' });
  const before = await stored();
  await expect(shown(page)).resolves.toEqual(['', '', '', '']);
  expect(await page.getByRole('button', { name: 'Send Message' }).isEnabled()).toBe(true);
  // The click itself brings the form's code, and the form answers it once the code is there.
  await send(page);
  await page.getByText(messages.topic).waitFor();
  await expect(shown(page)).resolves.toEqual(incomplete);
  // The most specific message, one at a time: a long name has only the "less than" one.
  await fill(page, { name: 'x'.repeat(101) });
  await page.getByText(messages.contactNameLong).waitFor();
  await expect(shown(page)).resolves.toEqual([messages.contactNameLong, ...incomplete.slice(1)]);
  expect(await stored()).toBe(before);
});

it("shows a field's message once the field is left, never because another field changed", async () => {
  const { page } = await app.newPage(PHONE);
  await page.goto(`${app.url}/contact`);
  await stir(page);
  await page.getByLabel('Name').fill('A');
  await page.getByLabel('Email').focus();
  await page.getByText(messages.contactNameShort).waitFor();
  await page.getByLabel('Email').fill('ada@');
  await page.getByLabel('Topic').selectOption('sales');
  await page.getByLabel('Message').fill('Hi');
  // Name was left with a problem; Email was left too; Message still has the focus.
  await page.getByText(messages.email).waitFor();
  await expect(shown(page)).resolves.toEqual([messages.contactNameShort, messages.email, '', '']);
  // Back to Name: its message goes as it is mended, and Message, now left, shows its own.
  await page.getByLabel('Name').fill('Ada');
  await page.getByText(messages.contactNameShort).waitFor({ state: 'detached' });
  await expect(shown(page)).resolves.toEqual(['', messages.email, '', messages.contactMessageShort]);
});

it.each([
  ['1366 px', DESKTOP],
  ['390 px', PHONE],
])("counts what was typed before the form's code arrived: it validates and sends what the fields show, at %s", async (_l, viewport) => {
  const { page } = await app.newPage(viewport);
  // The form's code is held back until all is typed and Send pressed. The page is not awaited to be
  // idle: a held request keeps it busy whenever anything asked for the code during the load.
  const release = await holdRequests(page, formCode);
  await page.goto(`${app.url}/contact`);
  const before = await stored();
  // As in the issue: a one-letter name, a bad e-mail and a short message at once, then Send.
  await fill(page, { name: 'A', email: 'ada@', message: 'Too short' });
  await send(page);
  await expect(shown(page)).resolves.toEqual(['', '', '', '']);
  release();
  await page.getByText(messages.topic).waitFor();
  await expect(shown(page)).resolves.toEqual(incomplete);
  await expect(page.getByLabel('Name').inputValue()).resolves.toBe('A');
  expect(await stored()).toBe(before);

  // A whole message typed before the code arrives is sent as the fields show it.
  const again = await app.newPage(viewport);
  const releaseAgain = await holdRequests(again.page, formCode);
  await again.page.goto(`${app.url}/contact`);
  await fill(again.page, valid);
  await send(again.page);
  releaseAgain();
  await expectToast(again.page, 'Thanks for contacting us!');
  const { rows } = await app.server.deps.db.query<{ name: string; email: string; topic: string; message: string }>(
    'select name, email, topic, message from public.contact_messages order by created_at desc limit 1',
  );
  expect(rows).toEqual([{ name: valid.name, email: valid.email, topic: valid.topic, message: valid.message }]);
});

it("checks a field left before the form's code arrived as soon as it arrives, and not the one still being typed in", async () => {
  const { page } = await app.newPage(PHONE);
  const release = await holdRequests(page, formCode);
  await page.goto(`${app.url}/contact`);
  await page.getByLabel('Name').fill('A');
  await page.getByLabel('Email').fill('ada@');
  release();
  await page.getByText(messages.contactNameShort).waitFor();
  await expect(shown(page)).resolves.toEqual([messages.contactNameShort, '', '', '']);
});
