import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptSecret } from '../../src/server/auth/mfa-secrets';
import { bootstrap } from '../../src/server/bootstrap';
import { backup } from '../../src/server/cli/backup';
import { describeFailure } from '../../src/server/cli/cli-error';
import { cliActor } from '../../src/server/cli/command';
import { restore } from '../../src/server/cli/restore';
import type { AppDeps } from '../../src/server/deps';
import { createUser } from '../../src/server/auth/users';
import { addCredits } from '../../src/server/domain/credits';
import { grantRole } from '../../src/server/domain/roles';
import { loadConfig } from '../../src/server/env';
import { createLogger } from '../../src/server/http/logger';
import { createOwnerRole, createPostgresDatabase, createTestDatabase, migratedDataFolder, postgresAnswers } from '../helpers/database';
import { dumpTables } from '../helpers/dump';
import { startTestServer, type TestServer } from '../helpers/server';
import { createService, createTestUser, GALA_KEY, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';
import { addRow, balancesOffTheLedger, editRow, holdings, openBackup, packBackup } from './data';

const JWT_SECRET = 'backup-test-jwt-secret-that-is-long-enough-0123456789';
// The site's address, which a restored site keeps: its sessions' tokens name it as their issuer.
const PUBLIC_URL = 'http://127.0.0.1:8080';
const KEY_A = 'backup-test-encryption-key-AAAAAAAAAAAAAAAAAAAAAAA';
const KEY_B = 'backup-test-encryption-key-BBBBBBBBBBBBBBBBBBBBBBB';

let s: TestServer;
/** What the backup command printed. */
let printedByBackup: string[];
/** What the source held when the backup was taken. */
let atBackup: Awaited<ReturnType<typeof holdings>>;
let owner: TestUser;
let other: TestUser;
let admin: TestUser;
let factor: { id: string; secret: string };
let folder: string;
let file: string;
/** How many tables the backup lists: every table of the schema, which each migration may add to. */
const tableCount = () => (openBackup(readFileSync(file)).manifest.tables as unknown[]).length;
const cleanUps: (() => Promise<unknown>)[] = [];

/** Runs a command as `npm run cli` would, and returns what it printed, or its failure as printed. */
async function cli(command: typeof backup, deps: AppDeps, values: Record<string, string | boolean>): Promise<string[]> {
  const lines: string[] = [];
  try {
    await command.run(deps, values, (l) => lines.push(l));
  } catch (e) {
    lines.push(describeFailure(e));
  }
  return lines;
}

/** A fresh DATA_DIR on disk, given the source's secrets.json as the README says, then set up as the CLI's first run would. */
async function freshDataDir(secrets = { jwtSecret: JWT_SECRET, encryptionKey: KEY_A }): Promise<AppDeps> {
  const dir = await migratedDataFolder(mkdtempSync(join(tmpdir(), 'nh-restore-')));
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify(secrets), { mode: 0o600 });
  const deps = await bootstrap(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), { logger: createLogger('silent') });
  cleanUps.push(async () => {
    await deps.db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return deps;
}

/** A fresh database of the kind the suite runs on (in memory or on the test PostgreSQL), with these settings. */
async function freshDatabase(env: Record<string, string>): Promise<AppDeps> {
  const t = await createTestDatabase();
  const deps = await bootstrap(loadConfig({ DATA_DIR: folder, JWT_SECRET, LOG_LEVEL: 'silent', ...env }), { db: t.db, logger: createLogger('silent') });
  cleanUps.push(async () => {
    await deps.db.close();
    await t.drop();
  });
  return deps;
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'nh-backups-'));
  s = await startTestServer({ JWT_SECRET, ENCRYPTION_KEY: KEY_A, PUBLIC_URL, RATE_LIMITS_ENABLED: 'false' });
  owner = await createTestUser(s, { credits: 25, fullName: 'Owner' });
  await createService(owner, 'town-one');
  other = await createTestUser(s, { credits: 12.5 });
  await createService(other, 'town-two');
  admin = await createTestUser(s, { admin: true });
  const { data, error } = await owner.client.auth.mfa.enroll({ factorType: 'totp' });
  if (error) throw error;
  factor = { id: data.id, secret: data.totp.secret };
  file = join(folder, 'nodeharbor.jsonl.gz');
  atBackup = await holdings(s.deps.db);
  // Every restore below reads this one backup.
  printedByBackup = await cli(backup, s.deps, { out: file });
});

afterAll(async () => {
  for (const clean of cleanUps.reverse()) await clean();
  await s.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('a backup', () => {
  it('is written whole, mode 0600, and says what it holds and which secrets it needs', async () => {
    const printed = printedByBackup;
    expect(printed).toEqual([
      `Backed up 3 user(s), 2 service(s) and 4 ledger row(s) ($17.50 in total), ${printed[0]!.match(/(\d+) rows in/)![1]} rows in ${tableCount()} tables to ${file}.`,
      `It holds password hashes and encrypted keys but no secret: a restore needs this ENCRYPTION_KEY to read the stored API keys and TOTP secrets, and this JWT_SECRET to keep sessions (both are set in the environment). Keep a copy of them apart from the backups.`,
    ]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const { manifest, content } = openBackup(readFileSync(file));
    expect(manifest).toMatchObject({ format: 'nodeharbor-backup', version: 1, database: s.deps.db.kind, signature: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((manifest.tables as { name: string }[]).map((t) => t.name)).not.toContain('nodeharbor.migrations');
    expect(manifest.migrations).toContain('migrations/0022_tell_renewal_months_and_next_payment.sql');
    // No secret in it: neither key, nor the JWT secret, nor the decrypted API key.
    const text = content.join('\n') + JSON.stringify(manifest);
    for (const secret of [KEY_A, JWT_SECRET, GALA_KEY, factor.secret]) expect(text).not.toContain(secret);
    expect(text).toContain(owner.email);
  });

  it('refuses a file that exists, and a folder that does not, writing nothing', async () => {
    expect(await cli(backup, s.deps, { out: file })).toEqual([`${file} already exists: give the backup a new file name.`]);
    const missing = join(folder, 'no-such-folder', 'x.jsonl.gz');
    expect(await cli(backup, s.deps, { out: missing })).toEqual([`No folder ${join(folder, 'no-such-folder')} to write the backup into.`]);
    expect(await cli(backup, s.deps, {})).toEqual(['--out is required']);
  });
});

describe('a restore', () => {
  const expected = () => atBackup;

  it('into a fresh DATA_DIR brings back the users, ledger, services and readable keys, and sessions go on', async () => {
    const target = await freshDataDir();
    const printed = await cli(restore, target, { from: file });
    expect(printed[0]).toBe(`Admins now: no one. Admins after the restore: ${admin.email} (new: ${admin.email}).`);
    expect(printed[1]).toMatch(
      new RegExp(
        `^Restored 3 user\\(s\\), 2 service\\(s\\) and 4 ledger row\\(s\\) \\(\\$17\\.50 in total\\), \\d+ rows in ${tableCount()} tables from ${file}, taken \\d{4}-`,
      ),
    );
    expect(printed[2]).toBe('Sessions stay valid: JWT_SECRET is the one the backup was taken with.');
    expect(printed[3]).toMatch(
      /^The data it replaced, its audit log included, is kept in .*\/nodeharbor-before-restore-\d{8}-\d{6}-\d{3}\.jsonl\.gz: restore that file to undo this\.$/,
    );
    expect(await holdings(target.db)).toEqual(await expected());
    const [row] = (await target.db.query<{ secret: string }>('select secret from auth.mfa_factors where id = $1', [factor.id])).rows;
    expect(decryptSecret(target.encryptionKeys, factor.id, row!.secret)).toBe(factor.secret);
    expect(await balancesOffTheLedger(target.db)).toEqual([]);

    // The owner's session of before the backup, against a server on the restored database.
    const served = await startTestServer(
      { JWT_SECRET, ENCRYPTION_KEY: KEY_A, PUBLIC_URL },
      { database: { db: { ...target.db, close: async () => {} }, drop: async () => {} } },
    );
    try {
      const me = await fetch(`${served.url}/auth/v1/user`, { headers: { apikey: served.anonKey, Authorization: `Bearer ${owner.token}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { email: string }).email).toBe(owner.email);
      const { data } = await owner.client.auth.getSession();
      const refreshed = await fetch(`${served.url}/auth/v1/token?grant_type=refresh_token`, {
        method: 'POST',
        headers: { apikey: served.anonKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ refresh_token: data.session!.refresh_token }),
      });
      expect(refreshed.status).toBe(200);
    } finally {
      await served.stop();
    }
  }, 120_000);

  it('refuses a database that holds data without --force, changing nothing, and replaces it with --force', async () => {
    const target = await freshDatabase({ ENCRYPTION_KEY: KEY_A });
    const user = await createUser(target.db, { email: 'already-here@nodeharbor.test', password: 'correct-horse-battery' });
    await addCredits(target.db, user.id, 3, 'already here');
    const before = await dumpTables(target.db);
    expect(await cli(restore, target, { from: file })).toEqual([
      'This database already holds data (1 user(s), 0 service(s), 1 ledger row(s)): run again with --force to replace all of it.\nNothing was changed.',
    ]);
    expect(await dumpTables(target.db)).toBe(before);
    expect((await cli(restore, target, { from: file, force: true }))[1]).toMatch(/^Restored 3 user\(s\)/);
    expect(await holdings(target.db)).toEqual(await expected());
  });

  it('takes a database that holds only its first admin, as a fresh start leaves it', async () => {
    const target = await freshDatabase({ ENCRYPTION_KEY: KEY_A });
    await grantRole(target.db, (await createUser(target.db, { email: 'first-admin@nodeharbor.test', password: 'correct-horse-battery' })).id, 'admin');
    expect((await target.db.query('select 1 from public.admin_users')).rowCount).toBe(1);
    expect((await cli(restore, target, { from: file }))[1]).toMatch(/^Restored 3 user\(s\)/);
  });

  it('into a database with another ENCRYPTION_KEY is refused, changing nothing; with the old key as ENCRYPTION_KEY_PREVIOUS it encrypts them again', async () => {
    const other = await freshDatabase({ ENCRYPTION_KEY: KEY_B });
    const before = await dumpTables(other.db);
    expect(await cli(restore, other, { from: file })).toEqual([
      "The backup's stored API keys and TOTP secrets were encrypted with another ENCRYPTION_KEY than this database's. Give that key as ENCRYPTION_KEY_PREVIOUS (on the embedded database it is the encryptionKey in the old DATA_DIR/secrets.json; to npm start as well, if it is running) and restore again: they are then encrypted again under ENCRYPTION_KEY.\nNothing was changed.",
    ]);
    expect(await dumpTables(other.db)).toBe(before);

    const rotating = await bootstrap(
      loadConfig({ DATA_DIR: folder, JWT_SECRET: `${JWT_SECRET}-other`, ENCRYPTION_KEY: KEY_B, ENCRYPTION_KEY_PREVIOUS: KEY_A, LOG_LEVEL: 'silent' }),
      {
        db: { ...other.db, close: async () => {} },
        logger: createLogger('silent'),
      },
    );
    const printed = await cli(restore, rotating, { from: file });
    expect(printed[2]).toBe('JWT_SECRET is not the one the backup was taken with: everyone signed in before must sign in again.');
    // Readable with the new key alone, and the old one no longer opens anything.
    const rotated = await bootstrap(loadConfig({ DATA_DIR: folder, JWT_SECRET, ENCRYPTION_KEY: KEY_B, LOG_LEVEL: 'silent' }), {
      db: { ...other.db, close: async () => {} },
      logger: createLogger('silent'),
    });
    expect(await holdings(rotated.db)).toEqual(await expected());
    const [row] = (await rotated.db.query<{ secret: string }>('select secret from auth.mfa_factors where id = $1', [factor.id])).rows;
    expect(decryptSecret(rotated.encryptionKeys, factor.id, row!.secret)).toBe(factor.secret);
    await expect(
      bootstrap(loadConfig({ DATA_DIR: folder, JWT_SECRET, ENCRYPTION_KEY: KEY_A, LOG_LEVEL: 'silent' }), { db: { ...other.db, close: async () => {} } }),
    ).rejects.toThrow(/ENCRYPTION_KEY is not the key this database was set up with/);
  });

  describe('of a damaged file is refused before anything changes', () => {
    let target: AppDeps;
    let before: string;
    const original = () => readFileSync(file);
    beforeAll(async () => {
      target = await freshDatabase({ ENCRYPTION_KEY: KEY_A });
      await addCredits(target.db, (await createUser(target.db, { email: 'kept@nodeharbor.test', password: 'correct-horse-battery' })).id, 2, 'kept');
      before = await dumpTables(target.db);
    });

    const damaged: [string, () => Buffer, (f: string) => string][] = [
      [
        'a changed row (bad checksum)',
        () => {
          const { manifest, content } = openBackup(original());
          // A balance of user_credits (the audit log's entries hold balances too, as text).
          const i = content.findIndex((l) => /"balance":[\d.]+/.test(l));
          content[i] = content[i]!.replace(/"balance":[\d.]+/, '"balance":1000000');
          return packBackup(manifest, content);
        },
        (f) => `${f} is damaged: its content does not match its checksum.`,
      ],
      ['a truncated file', () => original().subarray(0, Math.floor(original().length * 0.7)), (f) => `${f} is truncated or damaged: unexpected end of file.`],
      [
        'a file cut after its manifest',
        () => {
          const { manifest } = openBackup(original());
          return packBackup(manifest, ['']);
        },
        (f) => `${f} is truncated or damaged: it holds 0 of the ${tableCount()} tables its manifest lists.`,
      ],
      [
        'a row missing from a table',
        () => {
          const { manifest, content } = openBackup(original());
          content.splice(
            content.findIndex((l) => l.includes(owner.email) && l.includes('"encrypted_password"')),
            1,
          );
          return packBackup(manifest, content);
        },
        (f) => `${f} is truncated or damaged: auth.users has 2 rows where its manifest says 3.`,
      ],
      [
        'another format version',
        () => {
          const { manifest, content } = openBackup(original());
          return packBackup({ ...manifest, version: 2 }, content);
        },
        (f) => `${f} is a NodeHarbor backup of format version 2; this NodeHarbor reads version 1.`,
      ],
      [
        'another migration',
        () => {
          const { manifest, content } = openBackup(original());
          return packBackup({ ...manifest, migrations: [...(manifest.migrations as string[]), 'migrations/0099_from_the_future.sql'] }, content);
        },
        (f) =>
          `${f} was taken at migration migrations/0099_from_the_future.sql, and this NodeHarbor is at platform/0004_known_addresses_and_live_sessions.sql: restore it with the NodeHarbor version that took it.`,
      ],
      [
        'a whole file of other tables, though at the same migrations',
        () => {
          const { manifest, content } = openBackup(original());
          const tables = (manifest.tables as { name: string }[]).map((t) => (t.name === 'public.products' ? { ...t, name: 'public.goods' } : t));
          const renamed = content.map((l) => (l === '["table","public.products"]' ? '["table","public.goods"]' : l));
          return packBackup({ ...manifest, tables }, renamed, { signWith: KEY_A });
        },
        (f) => `${f} lists other tables than this database has, though at the same migration: it was not taken by NodeHarbor.`,
      ],
      ['a file that is not a backup', () => Buffer.from('just some text\n'), (f) => `${f} is not a NodeHarbor backup (incorrect header check).`],
      ['a gzip file that is not a backup', () => packBackup({ hello: 'world' }, []), (f) => `${f} is not a NodeHarbor backup.`],
    ];

    it.each(damaged)('%s', async (_name, make, message) => {
      const bad = join(folder, `damaged-${Math.random().toString(36).slice(2)}.jsonl.gz`);
      writeFileSync(bad, make());
      expect(await cli(restore, target, { from: bad, force: true })).toEqual([`${message(bad)}\nNothing was changed.`]);
      expect(await dumpTables(target.db)).toBe(before);
    });

    it('a file that is not there', async () => {
      const none = join(folder, 'none.jsonl.gz');
      expect(await cli(restore, target, { from: none })).toEqual([`No backup file at ${none}\nNothing was changed.`]);
      expect(await cli(restore, target, {})).toEqual(['--from is required']);
    });
  });

  it('of a backup taken while credits are being added gives a consistent ledger: every balance is the sum of its rows', async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => createTestUser(s, { credits: 1 })));
    let stop = false;
    let added = 0;
    const writers = users.map(async (u) => {
      while (!stop) {
        await addCredits(s.deps.db, u.id, 0.25, 'while backing up');
        added += 1;
        // In-process PGlite answers in microtasks: without a turn of the event loop nothing else would run.
        await new Promise((r) => setImmediate(r));
      }
    });
    const during = join(folder, 'during-writes.jsonl.gz');
    try {
      await until('20 credits added', () => added >= 20, undefined, 5);
      const printed = await cli(backup, s.deps, { out: during });
      expect(printed[0]).toMatch(/^Backed up/);
      expect(added).toBeGreaterThan(20);
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    const target = await freshDatabase({ ENCRYPTION_KEY: KEY_A });
    expect((await cli(restore, target, { from: during }))[1]).toMatch(/^Restored 7 user\(s\)/);
    expect(await balancesOffTheLedger(target.db)).toEqual([]);
    console.log(`${added} credits added by 4 writers while the backup was taken; every restored balance equals its ledger`);
  });
});

// Issue 42, item 1: an edited backup made a customer an admin, or a service_role user.
describe('a restore checks what it loads', () => {
  let target: AppDeps;
  let before: string;
  const original = () => openBackup(readFileSync(file));
  /** The pre-restore backups in the backups folder: one a refused restore must not leave. */
  const kept = () => readdirSync(folder).filter((f) => f.startsWith('nodeharbor-before-restore-'));
  const write = (bytes: Buffer) => {
    const path = join(folder, `edited-${Math.random().toString(36).slice(2)}.jsonl.gz`);
    writeFileSync(path, bytes);
    return path;
  };
  /** The source's balances as a restore describes them, largest first: owner's and other's, after their services' charges. */
  const balances = () => {
    const funded = atBackup.users.filter((u) => Number(u.balance) > 0).sort((a, b) => Number(b.balance) - Number(a.balance));
    return `$17.50 in balances to ${funded.length} user(s) (the largest: ${funded.map((u) => `${u.email} $${u.balance}`).join(', ')})`;
  };
  beforeAll(async () => {
    target = await freshDatabase({ ENCRYPTION_KEY: KEY_A });
    await addCredits(target.db, (await createUser(target.db, { email: 'kept-42@nodeharbor.test', password: 'correct-horse-battery' })).id, 2, 'kept');
    before = await dumpTables(target.db);
  });

  /** bob (other) made an admin by a row added to public.admin_users. */
  const withAdmin = () => {
    const { manifest, content } = original();
    const row = JSON.parse(content[content.indexOf('["table","public.admin_users"]') + 1]!) as Record<string, unknown>;
    return addRow(manifest, content, 'public.admin_users', { ...row, user_id: other.id });
  };
  /** mallory (owner) given the role service_role. */
  const withServiceRole = () => {
    const { manifest, content } = original();
    return { manifest, content: editRow(content, 'auth.users', owner.id, (l) => l.replace('"role":"authenticated"', '"role":"service_role"')) };
  };
  const pack = (e: ReturnType<typeof original>, opts: Parameters<typeof packBackup>[2]) => packBackup(e.manifest, e.content, opts);
  const foreign = (f: string) => `${f} is not signed by this installation (another ENCRYPTION_KEY signed it, or it was changed since)`;
  const roleRefused = (f: string) =>
    `${f} gives ${owner.email} the role service_role: a user's role is only ever authenticated, so NodeHarbor did not write it.\nNothing was changed.`;

  const edited: [string, () => Buffer, Record<string, boolean>, (f: string) => string][] = [
    [
      'an added admin, hashed again',
      () => pack(withAdmin(), { rehash: true }),
      {},
      (f) =>
        `${foreign(f)}: it grants admin to ${admin.email}, ${other.email}, and ${balances()}. If you trust it, run again with --trust-unsigned.\nNothing was changed.`,
    ],
    [
      'an added admin, unsigned',
      () => pack(withAdmin(), { rehash: true, unsigned: true }),
      {},
      (f) =>
        `${f} is not signed: it grants admin to ${admin.email}, ${other.email}, and ${balances()}. If you trust it, run again with --trust-unsigned.\nNothing was changed.`,
    ],
    // Not even --trust-unsigned restores a service_role user.
    ['a service_role user, hashed again', () => pack(withServiceRole(), { rehash: true }), { 'trust-unsigned': true }, roleRefused],
    ['a service_role user, unsigned', () => pack(withServiceRole(), { rehash: true, unsigned: true }), { 'trust-unsigned': true }, roleRefused],
    ['a service_role user, signed with this ENCRYPTION_KEY', () => pack(withServiceRole(), { signWith: KEY_A }), {}, roleRefused],
    [
      'a balance its ledger does not add up to, signed with this ENCRYPTION_KEY',
      () => {
        const { manifest, content } = original();
        const ledger = atBackup.users.find((u) => u.email === owner.email)!.ledger;
        const rich = editRow(content, 'public.user_credits', owner.id, (l) => l.replace(/"balance":[\d.]+/, '"balance":500'));
        expect(ledger).not.toBe('500.00');
        return packBackup(manifest, rich, { signWith: KEY_A });
      },
      {},
      (f) =>
        `${f} gives ${owner.email} a balance of $500.00 where their ledger sums to $${atBackup.users.find((u) => u.email === owner.email)!.ledger}: a balance always equals its ledger, so NodeHarbor did not write it.\nNothing was changed.`,
    ],
  ];

  it.each(edited)('is refused for %s, changing nothing and keeping no copy', async (_name, make, flags, message) => {
    const bad = write(make());
    const keptBefore = kept();
    // A refusal inside the transaction comes after the admins' line.
    expect((await cli(restore, target, { from: bad, force: true, ...flags })).at(-1)).toBe(message(bad));
    expect(await dumpTables(target.db)).toBe(before);
    expect(kept()).toEqual(keptBefore);
  });

  it('of a backup without a signature (taken before issue 42) needs --trust-unsigned, and then says what it grants first', async () => {
    const { manifest, content } = original();
    const old = write(packBackup(manifest, content, { unsigned: true }));
    const fresh = await freshDatabase({ ENCRYPTION_KEY: KEY_A });
    expect(await cli(restore, fresh, { from: old })).toEqual([
      `${old} is not signed: it grants admin to ${admin.email}, and ${balances()}. If you trust it, run again with --trust-unsigned.\nNothing was changed.`,
    ]);
    const printed = await cli(restore, fresh, { from: old, 'trust-unsigned': true });
    expect(printed[0]).toBe(`${old} is not signed; restoring it as --trust-unsigned asks. It grants admin to ${admin.email}, and ${balances()}.`);
    expect(printed[2]).toMatch(/^Restored 3 user\(s\)/);
    expect(await holdings(fresh.db)).toEqual(atBackup);
  });

  it("names an admin of the file as new when it is another account than today's admin of that address", async () => {
    const fresh = await freshDatabase({ ENCRYPTION_KEY: KEY_A, BACKUP_DIR: join(folder, 'kept-by-same-address') });
    const namesake = await createUser(fresh.db, { email: admin.email, password: 'correct-horse-battery' });
    await grantRole(fresh.db, namesake.id, 'admin');
    const printed = await cli(restore, fresh, { from: file });
    expect(printed[0]).toBe(`Admins now: ${admin.email}. Admins after the restore: ${admin.email} (new: ${admin.email}, another account than today's).`);
  });

  it('is recorded in the audit log it leaves, after a backup of what it replaced, where the replaced log stays readable', async () => {
    const backups = join(folder, 'kept-by-restore');
    const fresh = await freshDatabase({ ENCRYPTION_KEY: KEY_A, BACKUP_DIR: backups });
    const first = await createUser(fresh.db, { email: 'first-admin-42@nodeharbor.test', password: 'correct-horse-battery' });
    await grantRole(fresh.db, first.id, 'admin');
    const printed = await cli(restore, fresh, { from: file });
    expect(printed[0]).toBe(`Admins now: first-admin-42@nodeharbor.test. Admins after the restore: ${admin.email} (new: ${admin.email}).`);
    expect(printed[1]).toMatch(/^Restored 3 user\(s\)/);
    const [keptFile] = readdirSync(backups);
    expect(keptFile).toMatch(/^nodeharbor-before-restore-\d{8}-\d{6}-\d{3}\.jsonl\.gz$/);
    const keptPath = join(backups, keptFile!);
    expect(printed[3]).toBe(`The data it replaced, its audit log included, is kept in ${keptPath}: restore that file to undo this.`);
    expect(statSync(keptPath).mode & 0o777).toBe(0o600);

    const log = await fresh.db.query<{ actor: string; action: string; target_label: string; before: unknown; after: unknown }>(
      `select actor, action, target_label, before, after from private.admin_audit_log order by id`,
    );
    // The backup's own entries, then the restore's.
    expect(log.rows.at(-1)).toEqual({
      actor: cliActor(),
      action: 'database.restore',
      target_label: file,
      before: { kept_in: keptPath },
      after: { taken_at: openBackup(readFileSync(file)).manifest.takenAt, signed: true, users: 3, services: 2, ledger_rows: 4 },
    });
    const inFile = (openBackup(readFileSync(file)).manifest.tables as { name: string; rows: number }[]).find((t) => t.name === 'private.admin_audit_log')!.rows;
    expect(log.rows).toHaveLength(inFile + 1);
    expect(log.rows.map((r) => r.target_label)).not.toContain('first-admin-42@nodeharbor.test');
    // The log it replaced, in the backup it kept: the first admin's grant.
    const replaced = openBackup(readFileSync(keptPath)).content;
    const heading = replaced.indexOf('["table","private.admin_audit_log"]');
    expect(replaced.slice(heading + 1).find((l) => l.includes('first-admin-42@nodeharbor.test'))).toContain('"action":"role.admin.grant"');

    // That backup is this installation's, signed: restoring it undoes the restore.
    const undone = await cli(restore, fresh, { from: keptPath, force: true });
    expect(undone[0]).toBe(`Admins now: ${admin.email}. Admins after the restore: first-admin-42@nodeharbor.test (new: first-admin-42@nodeharbor.test).`);
    expect(undone[1]).toMatch(/^Restored 1 user\(s\), 0 service\(s\) and 0 ledger row\(s\)/);
  });

  it('that cannot keep a backup of what it replaces changes nothing', async () => {
    const blocked = join(folder, 'a-file-not-a-folder');
    writeFileSync(blocked, 'not a folder');
    const fresh = await freshDatabase({ ENCRYPTION_KEY: KEY_A, BACKUP_DIR: join(blocked, 'backups') });
    const dump = await dumpTables(fresh.db);
    const printed = await cli(restore, fresh, { from: file });
    expect(printed.at(-1)).toMatch(
      new RegExp(
        `^Could not back up the data the restore would replace into ${join(blocked, 'backups')} \\(ENOTDIR: .*\\): set BACKUP_DIR to a folder this process can write\\.\\nNothing was changed\\.$`,
      ),
    );
    expect(await dumpTables(fresh.db)).toBe(dump);
  });
});

describe("a user's role", () => {
  it('is only ever authenticated: the database refuses another, whoever writes it', async () => {
    await expect(s.deps.db.query(`update auth.users set role = 'service_role' where id = $1`, [owner.id])).rejects.toThrow(/users_role_is_authenticated/);
  });
});

describe.runIf(await postgresAnswers())('a restore into a fresh PostgreSQL database', () => {
  it('by an owner that is no superuser (README: PostgreSQL without a superuser), backed up by it again', async () => {
    const { url, drop } = await createOwnerRole();
    cleanUps.push(drop);
    const target = await bootstrap(loadConfig({ DATABASE_URL: url, JWT_SECRET, ENCRYPTION_KEY: KEY_A, LOG_LEVEL: 'silent' }), {
      logger: createLogger('silent'),
    });
    cleanUps.push(() => target.db.close());
    expect((await cli(restore, target, { from: file }))[1]).toMatch(/^Restored 3 user\(s\)/);
    expect(await holdings(target.db)).toEqual(atBackup);
    expect((await cli(backup, target, { out: join(folder, 'by-the-owner.jsonl.gz') }))[0]).toMatch(/^Backed up 3 user\(s\)/);
  });

  it('brings back the same users, ledger, services and readable keys', async () => {
    const scratch = await createPostgresDatabase('nh_restore');
    cleanUps.push(() => scratch.drop());
    const target = await bootstrap(loadConfig({ DATABASE_URL: scratch.url, JWT_SECRET, ENCRYPTION_KEY: KEY_A, LOG_LEVEL: 'silent' }), {
      logger: createLogger('silent'),
    });
    cleanUps.push(() => target.db.close());
    expect((await cli(restore, target, { from: file }))[1]).toMatch(/^Restored 3 user\(s\), 2 service\(s\) and 4 ledger row\(s\)/);
    expect(await holdings(target.db)).toEqual(atBackup);
    const [row] = (await target.db.query<{ secret: string }>('select secret from auth.mfa_factors where id = $1', [factor.id])).rows;
    expect(decryptSecret(target.encryptionKeys, factor.id, row!.secret)).toBe(factor.secret);
  });
});
