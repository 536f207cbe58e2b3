import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/server/db/migrate';
import { openPglite } from '../../src/server/db/pglite';
import { DB_DIR } from '../../src/server/paths';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string;
  }
}

/** Hash of every SQL file, so a snapshot is reused only while the migrations are unchanged. */
function sqlHash(): string {
  const h = createHash('sha256');
  for (const folder of ['platform', 'migrations']) {
    for (const f of readdirSync(join(DB_DIR, folder)).sort()) h.update(f).update(readFileSync(join(DB_DIR, folder, f)));
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * Migrates one PGlite and dumps it to a file, once per run: each test file then loads it in about
 * a second instead of running initdb and every migration again.
 */
export default async function setup(project: TestProject): Promise<void> {
  if (process.env.TEST_DB === 'postgres') return;
  const file = join(tmpdir(), `nodeharbor-pglite-${sqlHash()}.tar`);
  if (!existsSync(file)) {
    const db = await openPglite();
    await migrate(db, { platform: true });
    writeFileSync(file, Buffer.from(await (await db.dump()).arrayBuffer()));
    await db.close();
  }
  project.provide('pgliteSnapshot', file);
}
