import { getRequestListener } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { createApp } from '../../src/server/app';
import { bootstrap } from '../../src/server/bootstrap';
import type { AppDeps } from '../../src/server/deps';
import { loadConfig } from '../../src/server/env';
import { createHttpServer, KEEP_ALIVE_TIMEOUT_MS } from '../../src/server/http/http-server';
import { createLogger } from '../../src/server/http/logger';
import { createTestDatabase, type TestDatabase } from './database';

export type TestServer = {
  url: string;
  deps: AppDeps;
  /** The database as its driver opened it, without the encryption keys bootstrap gives deps.db. */
  rawDb: TestDatabase['db'];
  /** Where the test PostgreSQL serves this server's database; undefined on PGlite. */
  databaseUrl: string | undefined;
  anonKey: string;
  serviceRoleKey: string;
  /** A fresh supabase-js client with its own in-memory session storage. */
  client(): SupabaseClient;
  /** A supabase-js client with the service-role key (bypasses RLS). */
  serviceClient(): SupabaseClient;
  stop(): Promise<void>;
};

const TEST_KEEP_ALIVE_TIMEOUT_MS = 10 * 60_000;

/**
 * Starts the real server on a free port over a fresh database. `env` is read like process.env
 * (e.g. { REGISTRATION_ENABLED: 'true' }). Logs are kept quiet unless TEST_LOG=1, or collected
 * into `logLines` when given. With `webDir`, it also serves that built front end (the browser tests);
 * `port` fixes the port, for a PUBLIC_URL known before the start. Without PUBLIC_URL, links point
 * at the server's own address (HOST and PORT), as with npm start.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: { logLines?: string[]; webDir?: string; port?: number; database?: TestDatabase } = {},
): Promise<TestServer> {
  const settings = {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-0123456789',
    ENCRYPTION_KEY: 'test-encryption-key-that-is-long-enough-0123456789',
    LOG_LEVEL: process.env.TEST_LOG ? 'debug' : 'silent',
    // The suite runs on a shared, loaded machine, where an ordinary statement can take longer than
    // the embedded database's deadline for REST statements; the deadline's own test keeps the default.
    EMBEDDED_STATEMENT_TIMEOUT_MS: '5000',
    ...env,
  };
  // Listening first tells the port, which the configuration then names; requests are answered
  // once the app exists, and no one knows the address before this function returns. The HTTP
  // server is npm start's, with the timeouts and connection limit its settings give, but for the
  // keep-alive timeout: the test's fetch shares this process's event loop, and a file that holds the
  // loop longer than the timeout (200 receipts drawn in-process) then sends a request on an idle
  // connection before either side's timer has run; the server's fires next and resets the
  // connection under the request. Here fetch retires its idle connections first: the server waits
  // ten minutes (undici's longest keep-alive), and stop() closes what is left. Not for a browser's
  // server: Chromium keeps its idle connections until the server closes them, which would soon pass
  // the connection limit, and it sends a request again when a reused connection is reset.
  const server = createHttpServer(loadConfig(settings), options.webDir ? KEEP_ALIVE_TIMEOUT_MS : TEST_KEEP_ALIVE_TIMEOUT_MS);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const poolTimeoutMs = env.DATABASE_POOL_TIMEOUT_MS ? Number(env.DATABASE_POOL_TIMEOUT_MS) : undefined;
  const testDb = options.database ?? (await createTestDatabase({ poolTimeoutMs }));
  const dataDir = mkdtempSync(join(tmpdir(), 'nh-data-'));
  let deps: AppDeps;
  try {
    // On PostgreSQL its URL, as npm start has it: a backup's snapshot opens a connection of its own.
    const config = loadConfig({ PORT: String(port), DATA_DIR: dataDir, ...(testDb.url ? { DATABASE_URL: testDb.url } : {}), ...settings });
    const lines = options.logLines;
    const logger = lines ? createLogger('debug', (l) => lines.push(l)) : createLogger(config.logLevel);
    deps = await bootstrap(config, { db: testDb.db, logger });
  } catch (e) {
    server.close();
    throw e;
  }
  server.on('request', getRequestListener(createApp(options.webDir ? { ...deps, webDir: options.webDir } : deps).fetch));
  const auth = { persistSession: true, autoRefreshToken: false, detectSessionInUrl: false };
  return {
    url,
    deps,
    rawDb: testDb.db,
    databaseUrl: testDb.url,
    anonKey: deps.keys.anonKey,
    serviceRoleKey: deps.keys.serviceRoleKey,
    client: () => createClient(url, deps.keys.anonKey, { auth: { ...auth, storage: memoryStorage() } }),
    serviceClient: () => createClient(url, deps.keys.serviceRoleKey, { auth: { persistSession: false, autoRefreshToken: false } }),
    async stop() {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await deps.db.close();
      await testDb.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function memoryStorage() {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  };
}
