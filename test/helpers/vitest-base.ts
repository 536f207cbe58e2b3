import type { ViteUserConfig } from 'vitest/config';

/**
 * What every test config shares. Passwords hash at bcrypt's least cost in tests (passwordCost,
 * src/server/auth/passwords.ts), in the test files and in the processes they start; one test puts
 * the production cost back for itself.
 */
export const base = {
  // supabase-js builds a realtime client, which needs WebSocket: behind a flag on Node 20.
  execArgv: ['--experimental-websocket'],
  env: { NODEHARBOR_TEST_PASSWORD_COST: '4' },
  pool: 'forks',
  // expect.poll gives up after 1 s by default: a page or a job on a loaded 2-core machine can take
  // longer than that to get where a test waits for it, and a poll that will never pass still fails.
  expect: { poll: { timeout: 10_000 } },
} satisfies ViteUserConfig['test'];

/** Web code reaches src/shared as the app's build does (vite.config.ts). */
export const resolve = { alias: { '@shared': new URL('../../src/shared', import.meta.url).pathname } } satisfies ViteUserConfig['resolve'];

/**
 * Test files run two at a time, a worker per core of these 2-core machines: passes of their own
 * run beside each other too (scripts/test.mjs), and more workers than cores only trade one wait
 * for another.
 */
export const WORKERS = 2;
