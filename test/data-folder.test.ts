import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openPglite } from '../src/server/db/pglite';
import { resolveSecrets } from '../src/server/local-secrets';

// The embedded database and its secrets are the server's alone (issue 15): no other user of the
// machine may read or change a file of DATA_DIR.

const root = mkdtempSync(join(tmpdir(), 'nh-data-folder-'));
// A new embedded database is made on disk (initdb, fsynced): on a loaded 2-core machine that took over 30 s.
const FIRST_START_MS = 120_000;
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every path under `dir` that its group or other users may use in any way. */
function open(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    if ((statSync(path).mode & 0o077) !== 0) found.push(path);
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return found;
}

it(
  'creates DATA_DIR, its secrets and its database for the server alone',
  async () => {
    const dir = join(root, 'new');
    resolveSecrets({ dataDir: dir, jwtSecret: undefined, encryptionKey: undefined, databaseUrl: undefined });
    const db = await openPglite(dir);
    await db.query('create table t (x int)');
    await db.close();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(open(dir)).toEqual([]);
  },
  FIRST_START_MS,
);

it(
  'mends a folder an older version left open, on the next start',
  async () => {
    const dir = join(root, 'old');
    const first = await openPglite(dir);
    await first.close();
    chmodSync(dir, 0o777);
    mkdirSync(join(dir, 'stray'), { mode: 0o777 });
    writeFileSync(join(dir, 'stray', 'file'), 'x', { mode: 0o666 });
    chmodSync(join(dir, 'stray', 'file'), 0o666);
    expect(open(dir).length).toBeGreaterThan(2);
    const again = await openPglite(dir);
    await again.close();
    expect(open(dir)).toEqual([]);
  },
  FIRST_START_MS,
);
