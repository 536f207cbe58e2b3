import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFailure } from '../../src/server/cli/cli-error';
import { migrateTo } from '../../src/server/cli/migrate-to';
import { openPglite } from '../../src/server/db/pglite';
import { UNREADABLE_URL } from '../../src/server/redact-url';
import { createPostgresDatabase, migratedDataFolder, postgresAnswers, TEST_DB } from '../helpers/database';
import { freePort, spawnServer, type ServerProcess } from '../helpers/process';
import { startTestServer, type TestServer } from '../helpers/server';
import { createService, createTestUser, GALA_KEY, type TestUser } from '../helpers/users';
import { runCli } from './cli-process';

const secrets = { jwtSecret: 'migrate-test-jwt-secret-that-is-long-enough-0123456789', encryptionKey: 'migrate-test-encryption-key-that-is-long-enough-01234' };
// Installs take no time: a SIGTERM waits for the job under way.
const postgres = await postgresAnswers();
// PUBLIC_URL: the site's address, which stays when it moves to PostgreSQL; sessions' tokens name it.
const common = { RATE_LIMITS_ENABLED: 'false', LOG_LEVEL: 'warn', PROVISION_INSTALL_SECONDS: '0', PUBLIC_URL: 'http://127.0.0.1:8080' };

describe('migrate-to in this process', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.stop());
  const run = async (values: Record<string, string>) => {
    const lines: string[] = [];
    await migrateTo.run(s.deps, values, (l) => lines.push(l)).catch((e: unknown) => lines.push(describeFailure(e)));
    return lines;
  };

  it('refuses a URL that is not PostgreSQL, without printing its password', async () => {
    expect(await run({ 'database-url': 'mysql://root:secret@db/x' })).toEqual([
      '--database-url must be a postgres:// or postgresql:// URL, got "mysql://root:***@db/x"',
    ]);
    expect(await run({ 'database-url': 'not a url' })).toEqual([`--database-url must be a postgres:// or postgresql:// URL, got "${UNREADABLE_URL}"`]);
    expect(await run({})).toEqual(['--database-url is required']);
  });

  it.runIf(postgres)('copies a database whose secrets come from the environment, in the middle of a key rotation, and says what to set', async () => {
    const target = await createPostgresDatabase('nh_migrate');
    try {
      const rotating = { ...s.deps, encryptionKeys: { current: s.deps.encryptionKeys.current, previous: 'an-old-key-that-nothing-was-encrypted-with-0123' } };
      const lines: string[] = [];
      await migrateTo.run(rotating, { 'database-url': target.url }, (l) => lines.push(l));
      expect(lines[0]).toMatch(/^Copied 0 user\(s\)/);
      expect(lines.slice(1)).toEqual([
        'Next, stop NodeHarbor and start it again with these settings:',
        `  DATABASE_URL=${target.url}`,
        '  JWT_SECRET=<the JWT_SECRET set now>',
        '  ENCRYPTION_KEY=<the ENCRYPTION_KEY set now>',
        '  (and without ENCRYPTION_KEY_PREVIOUS: every stored key is now under ENCRYPTION_KEY)',
        s.deps.db.kind === 'pglite'
          ? `The embedded database in ${s.deps.config.dataDir} stays as it was; what is written to it from now on is not copied.`
          : 'This database stays as it was; what is written to it from now on is not copied.',
      ]);
    } finally {
      await target.drop();
    }
  });

  // Issue 42, item 4: a password holding `@` was printed in part, and one given as ?password= whole.
  it('prints no part of a password it cannot connect with, however the URL gives it', async () => {
    const port = await freePort();
    const at = `127.0.0.1:${port}/nodeharbor`;
    const cases: [url: string, shown: string][] = [
      [`postgres://nodeharbor:Tr0ub@dor@${at}`, `postgres://nodeharbor:***@${at}`],
      [`postgres://nodeharbor:Tr0ub%40dor%3A@${at}`, `postgres://nodeharbor:***@${at}`],
      [
        `postgres://nodeharbor@${at}?password=Tr0ub4dor&sslpassword=Tr0ub4dor&sslmode=disable`,
        `postgres://nodeharbor@${at}?password=***&sslpassword=***&sslmode=disable`,
      ],
      [`postgres://nodeharbor@${at}?password=Tr0ub@dor`, UNREADABLE_URL],
    ];
    for (const [url, shown] of cases) {
      const lines = await run({ 'database-url': url });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`Could not connect to ${shown}: `);
      expect(lines[0]).not.toMatch(/Tr0ub|dor/);
    }
  });

  it('refuses a database it cannot reach, with the reason', async () => {
    const port = await freePort();
    const lines = await run({ 'database-url': `postgres://nodeharbor:secret@127.0.0.1:${port}/nodeharbor` });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Could not connect to postgres://nodeharbor:\\*\\*\\*@127\\.0\\.0\\.1:${port}/nodeharbor: .*ECONNREFUSED`));
  });
});

// Processes like an operator's: the embedded server, the CLI beside it, then the server on PostgreSQL.
describe.runIf(TEST_DB === 'pglite' && postgres)('migrate-to from the embedded database to PostgreSQL', () => {
  let dataDir: string;
  let target: { url: string; drop(): Promise<void> };
  let server: ServerProcess | undefined;
  let owner: TestUser;
  let other: TestUser;
  beforeAll(async () => {
    dataDir = await migratedDataFolder(mkdtempSync(join(tmpdir(), 'nh-migrate-')));
    writeFileSync(join(dataDir, 'secrets.json'), JSON.stringify(secrets), { mode: 0o600 });
    // The data, written by the real server code into the embedded database in DATA_DIR.
    const s = await startTestServer(
      { JWT_SECRET: secrets.jwtSecret, ENCRYPTION_KEY: secrets.encryptionKey, RATE_LIMITS_ENABLED: 'false', PUBLIC_URL: common.PUBLIC_URL },
      { database: { db: await openPglite(dataDir), drop: async () => {} } },
    );
    owner = await createTestUser(s, { credits: 25 });
    await createService(owner, 'town-one');
    other = await createTestUser(s, { credits: 3 });
    await s.stop();
    target = await createPostgresDatabase('nh_migrate');
  }, 120_000);
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await target.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('copies everything while the server runs, and the server started with the printed settings serves the same users and keys', async () => {
    server = await spawnServer({ ...common, DATA_DIR: dataDir });
    const copied = await runCli(['migrate-to', '--database-url', target.url], { DATA_DIR: dataDir });
    expect(copied.stderr).toBe('');
    expect(copied.code).toBe(0);
    const lines = copied.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Copied 3 user\(s\), 1 service\(s\) and 3 ledger row\(s\) \(\$18\.00 in total\), \d+ rows in \d+ tables into /);
    expect(lines.slice(1)).toEqual([
      'Next, stop NodeHarbor and start it again with these settings:',
      `  DATABASE_URL=${target.url}`,
      `  JWT_SECRET=<the jwtSecret in ${join(dataDir, 'secrets.json')}>`,
      `  ENCRYPTION_KEY=<the encryptionKey in ${join(dataDir, 'secrets.json')}>`,
      `The embedded database in ${dataDir} stays as it was; what is written to it from now on is not copied.`,
    ]);
    server.child.kill('SIGTERM');
    expect(await server.exited, server.output()).toBe(0);

    // The settings as printed: a value, or where to find it.
    const env = Object.fromEntries(
      lines
        .filter((l) => l.startsWith('  '))
        .map((l) => {
          const [, name, value] = /^ {2}(\w+)=(.*)$/.exec(l)!;
          const where = /^<the (\w+) in (.+)>$/.exec(value!);
          return [name!, where ? (JSON.parse(readFileSync(where[2]!, 'utf8')) as Record<string, string>)[where[1]!]! : value!];
        }),
    );
    server = await spawnServer({ ...common, ...env });
    // No new admin account: the copy knows the first start happened.
    expect(server.output()).not.toMatch(/password:/);
    const anonKey = ((await (await fetch(`${server.url}/config.json`)).json()) as { supabaseAnonKey: string }).supabaseAnonKey;
    for (const u of [owner, other]) {
      const r = await fetch(`${server.url}/auth/v1/token?grant_type=password`, {
        method: 'POST',
        headers: { apikey: anonKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: u.email, password: u.password }),
      });
      expect(r.status).toBe(200);
    }
    // The owner's session of before goes on, and reads the node's key: the same JWT secret and encryption key.
    const services = await fetch(`${server.url}/rest/v1/services?select=name,api_key`, {
      headers: { apikey: anonKey, Authorization: `Bearer ${owner.token}` },
    });
    expect(await services.json()).toEqual([{ name: 'town-one', api_key: GALA_KEY }]);
    const credits = await fetch(`${server.url}/rest/v1/user_credits?select=balance`, { headers: { apikey: anonKey, Authorization: `Bearer ${owner.token}` } });
    expect(await credits.json()).toEqual([{ balance: 15 }]);
    server.child.kill('SIGTERM');
    expect(await server.exited, server.output()).toBe(0);
    server = undefined;
  }, 300_000);

  it('refuses a target that holds data without --force, and replaces it with --force', async () => {
    const again = await runCli(['migrate-to', '--database-url', target.url], { DATA_DIR: dataDir });
    expect(again).toEqual({
      code: 1,
      stdout: '',
      stderr: `The database at ${target.url} already holds data (3 user(s), 1 service(s), 3 ledger row(s)): run again with --force to replace all of it.\n`,
    });
    const forced = await runCli(['migrate-to', '--database-url', target.url, '--force'], { DATA_DIR: dataDir });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/^Copied 3 user\(s\)/);
  }, 300_000);
});
