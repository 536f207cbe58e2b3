import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from '../helpers/process';

// The embedded default only: a PostgreSQL server's durability is PostgreSQL's own.
const embedded = process.env.TEST_DB !== 'postgres';

describe.runIf(embedded)('the embedded database after a SIGKILL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'nh-durable-'));
  const env = { DATA_DIR: dataDir, RATE_LIMITS_ENABLED: 'false', ADMIN_EMAIL: 'owner@nodeharbor.test' };
  let server: ServerProcess | undefined;
  afterAll(() => {
    server?.child.kill('SIGKILL');
  });

  it('keeps every write that was answered 2xx', async () => {
    server = await spawnServer(env);
    const password = /password:\s+(\S+)/.exec(server.output())?.[1];
    expect(password, server.output()).toBeTruthy();
    const anonKey = ((await (await fetch(`${server.url}/config.json`)).json()) as { supabaseAnonKey: string }).supabaseAnonKey;

    // Each sign-in writes a session and a refresh token; an answered one must survive the kill.
    const answered: string[] = [];
    let stop = false;
    const signIn = async () => {
      while (!stop) {
        try {
          const r = await fetch(`${server!.url}/auth/v1/token?grant_type=password`, {
            method: 'POST',
            headers: { apikey: anonKey, 'Content-Type': 'application/json' },
            body: JSON.stringify({ email: 'owner@nodeharbor.test', password }),
          });
          if (r.ok) answered.push(((await r.json()) as { access_token: string }).access_token);
        } catch {
          return; // the server is gone
        }
      }
    };
    const burst = Array.from({ length: 8 }, signIn);
    while (answered.length < 40) await new Promise((r) => setTimeout(r, 5));
    server.child.kill('SIGKILL');
    stop = true;
    await Promise.all(burst);
    await server.exited;

    server = await spawnServer(env);
    expect(server.output()).not.toMatch(/password:/);
    for (const token of answered) {
      const r = await fetch(`${server.url}/auth/v1/user`, { headers: { apikey: anonKey, Authorization: `Bearer ${token}` } });
      expect(r.status).toBe(200);
    }
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 120_000);
});
