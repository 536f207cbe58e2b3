import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingPolicy, PAYPAL_CARD_REFUND_DAYS } from '../src/shared/billing-policy';
import { THEME_SCRIPT } from '../src/shared/theme-script';
import { DESKTOP, MOBILE, startApp, type TestApp, type Viewport } from './helpers/app';
import { seriousViolations } from './helpers/axe';

const STATUS_URL = 'https://status.nodeharbor.test';
/** Not the default (14): the terms must say what this server does. */
const SUSPENSION_DAYS = 10;
let app: TestApp;
beforeAll(async () => {
  // Its own server: the only one with a status page's address, and a suspension period of its own.
  app = await startApp({ STATUS_URL, SUSPENSION_DAYS: String(SUSPENSION_DAYS) });
});
afterAll(() => app?.stop());

/** The home page's FAQ: the spec's four questions, and what a failed installation costs (issue 14). */
const homeQuestions = [
  'What do I need to get started?',
  'How long does deployment take?',
  'What if my node fails to install?',
  'Is uptime guaranteed?',
  'How do I pay?',
  'What if my balance runs short, and can I get a refund?',
];
const failedInstallAnswer =
  'The paid period starts when your node first runs, and a failed installation costs nothing: its charge comes back to your balance at once. The dashboard shows why it failed, and you can retry the installation, which charges the price again once you confirm, or delete the service.';

/** Every public route of spec §2: its heading, and texts and links the spec asks for. */
const pages: { path: string; h1: string; texts?: string[]; links?: [name: string | RegExp, href: string][] }[] = [
  {
    path: '/',
    h1: 'Your blockchain gaming nodes, hosted and handled',
    texts: ['Fully Managed Node Operations', ...homeQuestions],
    links: [
      ['Host Gaming Nodes', '/gala-hosting/host-node'],
      ['Learn More', '/about'],
    ],
  },
  { path: '/about', h1: 'About NodeHarbor', texts: ['Mission', 'Why choose NodeHarbor'] },
  { path: '/contact', h1: 'Get in Touch' },
  { path: '/terms', h1: 'Terms of Service', texts: ['99%', 'one month'] },
  { path: '/privacy', h1: 'Privacy Policy', texts: ['International transfers'] },
  { path: '/cookies', h1: 'Cookie Policy', texts: ['Essential cookies', 'Analytics cookies'] },
  {
    path: '/login',
    h1: 'Sign in',
    links: [
      [/forgot/i, '/reset-password'],
      [/register|create/i, '/register'],
    ],
  },
  { path: '/reset-password', h1: 'Reset your password' },
  {
    path: '/gala-hosting/host-node',
    h1: 'Host your Gala Node',
    texts: ['Town Star', '$10', 'Founders Node', 'Spider Tanks', 'Mirandus', 'VPS', 'Dedicated server', '99%'],
    links: [['Notify Me about Founders Node', '/contact']],
  },
  { path: '/gala-hosting/api-key', h1: 'Gala API Key', texts: ['Five steps to a running node', '99.9%', 'Node Dashboard', '44 to 46 characters'] },
  {
    path: '/playa3ull-hosting/license-key',
    h1: 'Master Node License Key',
    texts: ['Five steps to a running node', '99.9%', 'Playa3ull dApp › Account › license key', '############-####-####-####-############'],
    links: [
      ['app.playa3ull.games/account', 'https://app.playa3ull.games/account'],
      ['Host your Master Node', '/playa3ull-hosting/host-node'],
    ],
  },
  {
    path: '/playa3ull-hosting/host-node',
    h1: 'Host your Master Node',
    texts: ['$3', 'Best Offer', 'Master Node License Key', '99.9%'],
    links: [['Get your license key', '/playa3ull-hosting/license-key']],
  },
  { path: '/no/such/page', h1: 'Oops! Page not found', links: [[/home/i, '/']] },
];

async function visit(path: string, viewport: Viewport = DESKTOP): Promise<{ page: Page; errors: string[] }> {
  const { page, errors } = await app.newPage(viewport);
  // Until the page's code has run, a click on a menu button does nothing (the prerendered HTML is inert).
  await page.goto(`${app.url}${path}`, { waitUntil: 'networkidle' });
  return { page, errors };
}

describe.each([
  ['1280 px', DESKTOP],
  ['375 px', MOBILE],
])('at %s', (_label, viewport) => {
  it.each(pages)('$path shows its content, without a script error', async ({ path, h1, texts = [], links = [] }) => {
    const { page, errors } = await visit(path, viewport);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe(h1);
    for (const t of texts) expect(await page.getByText(t, { exact: false }).count(), t).toBeGreaterThan(0);
    for (const [name, href] of links) {
      await expect(page.getByRole('link', { name }).first().getAttribute('href')).resolves.toBe(href);
    }
    // The footer of spec §2 on every page.
    const footer = page.getByRole('contentinfo');
    for (const [name, href] of [
      ['Master Node License Key', '/playa3ull-hosting/license-key'],
      ['Terms of Service', '/terms'],
      ['Privacy Policy', '/privacy'],
      ['Cookie Policy', '/cookies'],
      ['System Status', STATUS_URL],
    ]) {
      await expect(footer.getByRole('link', { name }).getAttribute('href')).resolves.toBe(href);
    }
    expect(await footer.getByRole('link', { name: 'Gala Games' }).getAttribute('target')).toBe('_blank');
    await page.close();
    // An unknown path is answered with the 404 page and its status, which the console reports.
    expect(errors.filter((e) => !(h1 === 'Oops! Page not found' && e.includes('status of 404')))).toEqual([]);
  });
});

it('the header menus lead to the product pages on a wide screen', async () => {
  const { page } = await visit('/');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('button', { name: 'Gala Hosting' }).click();
  await nav.getByRole('link', { name: /Gala API Key/ }).click();
  await page.waitForURL(/\/gala-hosting\/api-key$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Gala API Key' }).waitFor()).resolves.toBeUndefined();
  // Following a link closes the menu.
  await expect(nav.getByRole('button', { name: 'Gala Hosting' }).getAttribute('aria-expanded')).resolves.toBe('false');
  await nav.getByRole('button', { name: 'Playa3ull Hosting' }).click();
  await page.keyboard.press('Escape');
  await expect(nav.getByRole('button', { name: 'Playa3ull Hosting' }).getAttribute('aria-expanded')).resolves.toBe('false');
  await expect(page.getByRole('link', { name: 'Login' }).isVisible()).resolves.toBe(true);
  await expect(page.getByRole('link', { name: 'Register' }).isVisible()).resolves.toBe(true);
});

it('the Playa3ull menu leads to the Master Node License Key guide', async () => {
  const { page } = await visit('/');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('button', { name: 'Playa3ull Hosting' }).click();
  await nav.getByRole('link', { name: /Master Node License Key/ }).click();
  await page.waitForURL(/\/playa3ull-hosting\/license-key$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Master Node License Key' }).waitFor()).resolves.toBeUndefined();
});

/** Opens one question of a page's FAQ (native <details>) and returns its answer as shown. */
async function faqAnswer(page: Page, question: string): Promise<string> {
  const item = page.locator('details').filter({ has: page.locator('summary', { hasText: question }) });
  await item.locator('summary').click();
  const answer = item.locator('p');
  await answer.waitFor({ state: 'visible' });
  return answer.innerText();
}

const perWalletQuestion = 'I own several Master Node licenses. How many services do I need?';
const perWalletAnswer =
  'One for each wallet. While the Master Node Software is in beta, one running instance covers every license in the same wallet, however many you own there. So one Master Node service covers all the licenses in a wallet; licenses in different wallets need one service for each wallet.';

describe('the key guides say what the vendors say', () => {
  it("the Playa3ull guide sends the customer to the dApp's Account page, gives the key's form and the per-wallet rule", async () => {
    const { page, errors } = await visit('/playa3ull-hosting/license-key');
    const account = page.getByRole('link', { name: 'app.playa3ull.games/account' });
    await expect(account.getAttribute('href')).resolves.toBe('https://app.playa3ull.games/account');
    await expect(account.getAttribute('target')).resolves.toBe('_blank');
    const steps = page.getByRole('region', { name: 'Five steps to a running node' });
    await expect(steps.getByRole('heading', { level: 3 }).allTextContents()).resolves.toEqual([
      'Step 1: Sign in to the PLAYA3ULL GAMES dApp',
      'Step 2: Open your Account page',
      'Step 3: Copy your license key',
      'Step 4: Paste it straight into NodeHarbor',
      'Step 5: Create your service',
    ]);
    await expect(steps.innerText()).resolves.toContain(
      'It has the form ############-####-####-####-############: five groups of 12, 4, 4, 4 and 12 letters or digits, separated by hyphens, 40 characters in all.',
    );
    // The create-service form's own message, word for word.
    await expect(steps.innerText()).resolves.toContain('"License key must have the form ############-####-####-####-############"');
    await expect(faqAnswer(page, perWalletQuestion)).resolves.toBe(perWalletAnswer);
    await expect(faqAnswer(page, 'How long must a Master Node be online?')).resolves.toContain('At least 8 hours in each UTC day, from 00:00 to 23:59 UTC.');
    await expect(faqAnswer(page, 'Does NodeHarbor need my wallet?')).resolves.toContain("it never needs your wallet's seed phrase or private key");
    expect(errors).toEqual([]);
  });

  it("the Gala guide finds the key in the Node Dashboard and explains Gala's pairing rule", async () => {
    const { page, errors } = await visit('/gala-hosting/api-key');
    const steps = page.getByRole('region', { name: 'Five steps to a running node' });
    await steps.getByRole('heading', { name: 'Step 2: Open the Node Dashboard' }).waitFor();
    await expect(steps.innerText()).resolves.toContain('Gala account › Node Dashboard › API key');
    await expect(steps.innerText()).resolves.toContain('It cannot move or touch the NFTs or crypto in your wallet.');
    await expect(steps.innerText()).resolves.toContain('It is a string of 44 to 46 characters that ends with "=".');
    await expect(faqAnswer(page, 'Can I also run my license on my own computer?')).resolves.toBe(
      'Not while we host it. Gala pairs a license with one running node. After about 10 minutes offline, Gala may release the pairing and pair the license with another of your nodes, so a second node running the same license can take it over. We e-mail you once your hosted node has been down for 5 minutes.',
    );
    expect(errors).toEqual([]);
  });

  it('the Master Node page answers how many services a wallet needs and links the guide', async () => {
    const { page, errors } = await visit('/playa3ull-hosting/host-node');
    await expect(faqAnswer(page, perWalletQuestion)).resolves.toBe(perWalletAnswer);
    // What a crawler reads: the same answer in the page's FAQPage.
    const html = await (await fetch(`${app.url}/playa3ull-hosting/host-node`)).text();
    expect(html).toContain(perWalletAnswer);
    await page.getByRole('link', { name: 'Get your license key' }).click();
    await page.waitForURL(/\/playa3ull-hosting\/license-key$/);
    await page.getByRole('heading', { level: 1, name: 'Master Node License Key' }).waitFor();
    expect(errors).toEqual([]);
  });
});

it('below 768 px the header collapses into a menu of at most 500 px that closes when a link is chosen', async () => {
  const { page } = await visit('/', MOBILE);
  await expect(page.getByRole('navigation', { name: 'Main' }).isVisible()).resolves.toBe(false);
  await page.getByRole('button', { name: 'Open menu' }).click();
  const menu = page.getByRole('navigation', { name: 'Mobile' });
  await expect(menu.isVisible()).resolves.toBe(true);
  expect(await menu.evaluate((e) => getComputedStyle(e).maxHeight)).toBe('500px');
  await menu.getByRole('link', { name: 'Host Master Node' }).click();
  await page.waitForURL(/\/playa3ull-hosting\/host-node$/);
  await page.getByRole('heading', { level: 1, name: 'Host your Master Node' }).waitFor();
  await expect(menu.isVisible()).resolves.toBe(false);
  await expect(page.getByRole('button', { name: 'Open menu' }).isVisible()).resolves.toBe(true);
});

it('every route change starts at the top of the page', async () => {
  const { page } = await visit('/');
  await page.getByRole('contentinfo').getByRole('link', { name: 'Privacy Policy' }).click();
  await page.waitForURL(/\/privacy$/);
  await page.waitForFunction(() => window.scrollY === 0);
  await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Privacy Policy');
});

it('the home page tabs start on Gaming Nodes and switch', async () => {
  const { page } = await visit('/');
  const tabs = page.getByRole('tablist');
  await expect(tabs.getByRole('tab', { name: 'Gaming Nodes' }).getAttribute('aria-selected')).resolves.toBe('true');
  await tabs.getByRole('tab', { name: 'Reliability' }).click();
  await expect(tabs.getByRole('tab', { name: 'Reliability' }).getAttribute('aria-selected')).resolves.toBe('true');
  await expect(page.getByRole('tabpanel').count()).resolves.toBe(1);
});

it('the home page FAQ answers each question on request, the structured data holds the same questions and answers', async () => {
  const { page } = await visit('/');
  const faq = page.getByRole('region', { name: 'Frequently asked questions' });
  const shown = (await faq.locator('summary').allTextContents()).map((t) => t.replace(/\+$/, '').trim());
  expect(shown).toEqual(homeQuestions);
  await expect(faq.getByText(failedInstallAnswer).isVisible()).resolves.toBe(false);
  await faq.getByText('What if my node fails to install?').click();
  await expect(faq.getByText(failedInstallAnswer).isVisible()).resolves.toBe(true);
  // What a crawler reads, before any script: the FAQPage of the prerendered page.
  const html = await (await fetch(`${app.url}/`)).text();
  const ld = [...html.matchAll(/<script data-seo type="application\/ld\+json">(.*?)<\/script>/g)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);
  const faqLd = ld.find((x) => x['@type'] === 'FAQPage') as { mainEntity: { name: string; acceptedAnswer: { text: string } }[] };
  expect(faqLd.mainEntity.map((q) => q.name)).toEqual(homeQuestions);
  expect(faqLd.mainEntity[2]!.acceptedAnswer.text).toBe(failedInstallAnswer);
  expect(html).toContain(failedInstallAnswer);
});

it("the terms' billing and refund policy names the numbers this server runs with", async () => {
  const { page, errors } = await visit('/terms');
  const policy = billingPolicy(SUSPENSION_DAYS);
  for (const p of policy) await page.getByText(p.text).waitFor();
  expect(policy.find((p) => p.heading === 'Renewals')!.text).toContain(`within ${SUSPENSION_DAYS} days`);
  expect(policy.find((p) => p.heading === 'Refunds')!.text).toContain(`up to ${PAYPAL_CARD_REFUND_DAYS} days`);
  await expect(page.getByText(`within ${SUSPENSION_DAYS} days`).count()).resolves.toBe(1);
  // No crypto processor on this server: the terms promise nothing of crypto (e2e/crypto-payments.spec.ts has one).
  await expect(page.getByText('final on chain').count()).resolves.toBe(0);
  expect(errors).toEqual([]);
});

it('the dark theme is applied, and kept across a reload', async () => {
  const { page } = await visit('/about');
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(true);
  await page.reload();
  expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(true);
  await page.getByRole('button', { name: 'Switch to light theme' }).click();
  expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(false);
});

it("the dark theme is set before any of the app's code runs, by the one inline script the CSP allows", async () => {
  const { page, errors } = await app.newPage(DESKTOP);
  await page.goto(`${app.url}/about`);
  await page.evaluate(() => localStorage.setItem('nodeharbor-theme', 'dark'));
  await page.route('**/assets/*.js', (route) => route.abort());
  await page.reload({ waitUntil: 'load' });
  expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(true);
  expect(errors.filter((e) => /Content Security Policy/.test(e))).toEqual([]);
});

describe('what a crawler receives, before any script runs', () => {
  const seoPaths = [
    '/',
    '/about',
    '/contact',
    '/terms',
    '/privacy',
    '/cookies',
    '/login',
    '/gala-hosting/host-node',
    '/gala-hosting/api-key',
    '/playa3ull-hosting/host-node',
    '/playa3ull-hosting/license-key',
  ];

  it.each(seoPaths)('%s has its title, description, canonical, social tags, JSON-LD and content', async (path) => {
    const res = await fetch(`${app.url}${path}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<title data-seo>[^<]+\| NodeHarbor<\/title>/);
    expect(html).toMatch(/<meta data-seo name="description" content="[^"]{50,}">/);
    expect(html).toContain(`<link data-seo rel="canonical" href="https://nodeharbor.io${path}">`);
    expect(html).toMatch(/property="og:title"/);
    expect(html).toMatch(/name="twitter:card" content="summary_large_image"/);
    const ld = [...html.matchAll(/<script data-seo type="application\/ld\+json">(.*?)<\/script>/g)].map((m) => JSON.parse(m[1]!) as { '@type': string });
    expect(ld.length).toBeGreaterThan(0);
    expect(html).toMatch(/<h1[^>]*>[^<]+<\/h1>/);
    // The one inline script is the theme's, which the CSP allows by its hash.
    expect([...html.matchAll(/<script>(.*?)<\/script>/g)].map((m) => m[1])).toEqual([THEME_SCRIPT]);
  });

  it('assigns the structured data of spec §2 to its pages', async () => {
    const types = async (path: string) => [...(await (await fetch(`${app.url}${path}`)).text()).matchAll(/"@type":"(\w+)"/g)].map((m) => m[1]);
    expect(await types('/')).toEqual(expect.arrayContaining(['Organization', 'WebSite', 'FAQPage']));
    expect(await types('/about')).toEqual(expect.arrayContaining(['Organization', 'BreadcrumbList']));
    expect(await types('/gala-hosting/host-node')).toEqual(expect.arrayContaining(['Service', 'BreadcrumbList']));
    expect(await types('/gala-hosting/api-key')).toEqual(expect.arrayContaining(['Article', 'FAQPage']));
    expect(await types('/playa3ull-hosting/license-key')).toEqual(expect.arrayContaining(['Article', 'FAQPage', 'BreadcrumbList']));
    expect(await types('/playa3ull-hosting/host-node')).toEqual(expect.arrayContaining(['Service', 'FAQPage', 'BreadcrumbList']));
    expect(await types('/terms')).toEqual(expect.arrayContaining(['Article']));
    expect(await (await fetch(`${app.url}/`)).text()).toContain('"foundingDate":"2024"');
  });

  it('marks the reset-confirm page and unknown paths noindex', async () => {
    expect(await (await fetch(`${app.url}/reset-password-confirm`)).text()).toContain('content="noindex, nofollow"');
    const missing = await fetch(`${app.url}/no/such/page`);
    expect(await missing.text()).toContain('Oops! Page not found');
  });

  it('serves robots.txt and a sitemap of the public routes', async () => {
    const robots = await (await fetch(`${app.url}/robots.txt`)).text();
    expect(robots).toContain('Disallow: /dashboard');
    expect(robots).toContain('Disallow: /admin');
    expect(robots).toContain('Sitemap: https://nodeharbor.io/sitemap.xml');
    const sitemap = await (await fetch(`${app.url}/sitemap.xml`)).text();
    for (const p of [
      '/about',
      '/contact',
      '/gala-hosting/host-node',
      '/gala-hosting/api-key',
      '/playa3ull-hosting/host-node',
      '/playa3ull-hosting/license-key',
      '/terms',
    ]) {
      expect(sitemap).toContain(`<loc>https://nodeharbor.io${p}</loc>`);
    }
    expect(sitemap).not.toContain('/dashboard');
    expect(sitemap).not.toContain('/reset-password-confirm');
  });
});

describe('accessibility (axe)', () => {
  it.each([...pages.map((p) => p.path), '/register'])('%s has no serious or critical violation', async (path) => {
    const { page } = await visit(path);
    await page.waitForLoadState('networkidle');
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });
});
