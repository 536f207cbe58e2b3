import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/server/db/database';
import { hitRateLimit, peekRateLimit } from '../src/server/http/rate-limit';
import { createTestDatabase, type TestDatabase } from './helpers/database';

describe('hitRateLimit', () => {
  let t: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    t = await createTestDatabase();
    db = t.db;
  });
  afterAll(async () => {
    await db.close();
    await t.drop();
  });

  it('allows max hits per window, then answers the seconds to wait', async () => {
    const limit = { max: 3, windowSeconds: 60 };
    expect([await hitRateLimit(db, 'k1', limit), await hitRateLimit(db, 'k1', limit), await hitRateLimit(db, 'k1', limit)]).toEqual([0, 0, 0]);
    const wait = await hitRateLimit(db, 'k1', limit);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await hitRateLimit(db, 'k2', limit)).toBe(0);
  });

  it('starts a new window once the old one has passed', async () => {
    const limit = { max: 1, windowSeconds: 60 };
    await hitRateLimit(db, 'k3', limit);
    expect(await hitRateLimit(db, 'k3', limit)).toBeGreaterThan(0);
    await db.query(`update nodeharbor.rate_limits set window_start = now() - interval '61 seconds' where key = 'k3'`);
    expect(await hitRateLimit(db, 'k3', limit)).toBe(0);
  });

  it('peeks without counting: blocked once max hits are in the window, free again after it', async () => {
    const limit = { max: 2, windowSeconds: 60 };
    expect(await peekRateLimit(db, 'k4', limit)).toBe(0);
    await hitRateLimit(db, 'k4', limit);
    expect([await peekRateLimit(db, 'k4', limit), await peekRateLimit(db, 'k4', limit)]).toEqual([0, 0]);
    await hitRateLimit(db, 'k4', limit);
    expect(await peekRateLimit(db, 'k4', limit)).toBeGreaterThan(0);
    await db.query(`update nodeharbor.rate_limits set window_start = now() - interval '61 seconds' where key = 'k4'`);
    expect(await peekRateLimit(db, 'k4', limit)).toBe(0);
  });
});
