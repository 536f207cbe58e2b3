import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKUP_FORMAT, BACKUP_VERSION } from './backup-format';
import { readBackup } from './read-backup';

const dir = mkdtempSync(join(tmpdir(), 'nh-read-backup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A backup file of these content lines, whose manifest counts `tables` and hashes the content. */
function file(name: string, lines: string[], tables: { name: string; rows: number }[], manifest: Record<string, unknown> = {}): string {
  const content = lines.map((l) => `${l}\n`).join('');
  const head = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    takenAt: '2025-01-01T00:00:00.000Z',
    database: 'pglite',
    migrations: ['migrations/0001_x.sql'],
    tables,
    sequences: [],
    encryptionKeyCheck: null,
    jwtSecretCheck: 'x',
    sha256: createHash('sha256').update(content).digest('hex'),
    ...manifest,
  };
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat([gzipSync(`${JSON.stringify(head)}\n`), gzipSync(content)]));
  return path;
}

const users = ['["table","auth.users"]', '{"id":1}', '{"id":2}'];

describe('readBackup', () => {
  it('reads a whole file and hands over each table in batches', async () => {
    const rows: [string, string[]][] = [];
    const path = file(
      'good',
      [...users, '["table","public.products"]'],
      [
        { name: 'auth.users', rows: 2 },
        { name: 'public.products', rows: 0 },
      ],
    );
    expect((await readBackup(path, async (t, r) => void rows.push([t, r]))).tables).toHaveLength(2);
    expect(rows).toEqual([['auth.users', ['{"id":1}', '{"id":2}']]]);
  });

  it.each([
    ['an incomplete manifest', () => file('m', users, [{ name: 'auth.users', rows: 2 }], { sha256: 'abc' }), 'its manifest is incomplete'],
    ['a heading that is not JSON', () => file('h', ['[table auth.users', '{"id":1}'], [{ name: 'auth.users', rows: 1 }]), 'a table heading is not JSON'],
    [
      'a table out of its order',
      () => file('o', ['["table","public.products"]'], [{ name: 'auth.users', rows: 0 }]),
      'found table public.products where its manifest has auth.users',
    ],
    [
      'a table the manifest does not list',
      () => file('x', [...users, '["table","x.y"]'], [{ name: 'auth.users', rows: 2 }]),
      'found table x.y where its manifest has no more tables',
    ],
    ['a row that is not JSON', () => file('r', ['["table","auth.users"]', '{"id":'], [{ name: 'auth.users', rows: 1 }]), 'a row of auth.users is not JSON'],
    ['a row before any table', () => file('b', ['{"id":1}'], []), 'a line is neither a table heading nor a row'],
    [
      'a line that is neither',
      () => file('n', ['["table","auth.users"]', 'id=1'], [{ name: 'auth.users', rows: 1 }]),
      'a line is neither a table heading nor a row',
    ],
  ])('refuses %s', async (_name, make, why) => {
    const path = make();
    await expect(readBackup(path)).rejects.toThrow(`${path} is truncated or damaged: ${why}.`);
  });

  it('refuses content that ends in the middle of a line', async () => {
    const path = join(dir, 'cut');
    const content = '["table","auth.users"]\n{"id":1';
    const head = JSON.stringify({
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      takenAt: 'x',
      database: 'pglite',
      migrations: [],
      tables: [{ name: 'auth.users', rows: 0 }],
      sequences: [],
      encryptionKeyCheck: null,
      jwtSecretCheck: 'x',
      sha256: createHash('sha256').update(content).digest('hex'),
    });
    writeFileSync(path, Buffer.concat([gzipSync(`${head}\n`), gzipSync(content)]));
    await expect(readBackup(path)).rejects.toThrow(`${path} is truncated or damaged: it ends in the middle of a line.`);
  });

  it('refuses a line longer than any row without holding it all', async () => {
    const path = file('long', ['["table","auth.users"]', `{"id":"${'x'.repeat(200_000)}"}`], [{ name: 'auth.users', rows: 1 }]);
    await expect(readBackup(path, undefined, 100_000)).rejects.toThrow(`${path} is truncated or damaged: a line is longer than any row.`);
    expect((await readBackup(path)).tables).toEqual([{ name: 'auth.users', rows: 1 }]);
  });

  it("passes on what the rows' receiver throws, as it is", async () => {
    const path = file('refused', users, [{ name: 'auth.users', rows: 2 }]);
    const refusal = new Error('duplicate key value violates unique constraint');
    await expect(readBackup(path, () => Promise.reject(refusal))).rejects.toBe(refusal);
  });
});
